user=alice
cwd=/tmp/ivref/work
sbatch --gpus-per-socket=1 ok.sh 
