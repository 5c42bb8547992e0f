user=alice
cwd=/tmp/ivref/work
sbatch --tmp=x ok.sh 
