user=alice
cwd=/tmp/ivref/work
sbatch --mem-bind=x ok.sh 
