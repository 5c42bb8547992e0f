user=alice
cwd=/tmp/ivref/work
sbatch --core-spec=x ok.sh 
