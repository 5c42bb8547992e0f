user=alice
cwd=/tmp/ivref/work
srun --immediate=x true 
