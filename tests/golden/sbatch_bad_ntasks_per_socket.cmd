user=alice
cwd=/tmp/ivref/work
sbatch --ntasks-per-socket=-1 ok.sh 
