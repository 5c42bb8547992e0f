user=alice
cwd=/tmp/ivref/work
sbatch --gpu-freq=x ok.sh 
