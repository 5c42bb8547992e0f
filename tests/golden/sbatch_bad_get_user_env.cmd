user=alice
cwd=/tmp/ivref/work
sbatch --get-user-env=10x ok.sh 
