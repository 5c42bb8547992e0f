user=alice
cwd=/tmp/ivref/work
sbatch --ntasks-per-gpu=x ok.sh 
