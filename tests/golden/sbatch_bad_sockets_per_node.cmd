user=alice
cwd=/tmp/ivref/work
sbatch --sockets-per-node=x ok.sh 
