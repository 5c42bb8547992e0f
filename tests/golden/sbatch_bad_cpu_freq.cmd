user=alice
cwd=/tmp/ivref/work
sbatch --cpu-freq=bogus ok.sh 
