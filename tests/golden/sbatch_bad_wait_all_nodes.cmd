user=alice
cwd=/tmp/ivref/work
sbatch --wait-all-nodes=2 ok.sh 
