user=alice
cwd=/tmp/ivref/work
sbatch --cores-per-socket=x ok.sh 
