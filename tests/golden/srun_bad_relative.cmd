user=alice
cwd=/tmp/ivref/work
srun --relative=x true 
