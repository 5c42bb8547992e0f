user=alice
cwd=/tmp/ivref/work
sbatch --ntasks-per-tres=x ok.sh 
