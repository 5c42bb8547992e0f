user=alice
cwd=/tmp/ivref/work
sbatch --no-kill=x ok.sh 
