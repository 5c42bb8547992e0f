user=alice
cwd=/tmp/ivref/work
sbatch --hint=x ok.sh 
