user=alice
cwd=/tmp/ivref/work
sbatch --gpu-bind=x ok.sh 
