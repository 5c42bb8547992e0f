user=alice
cwd=/tmp/ivref/work
srun --cpu-freq=bogus true 
