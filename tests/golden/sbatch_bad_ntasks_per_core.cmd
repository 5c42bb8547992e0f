user=alice
cwd=/tmp/ivref/work
sbatch --ntasks-per-core=x ok.sh 
