user=alice
cwd=/tmp/ivref/work
sbatch --hint=help ok.sh 
