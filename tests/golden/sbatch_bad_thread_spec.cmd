user=alice
cwd=/tmp/ivref/work
sbatch --thread-spec=0 ok.sh 
