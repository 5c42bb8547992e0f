user=alice
cwd=/tmp/ivref/work
sbatch --profile=x ok.sh 
