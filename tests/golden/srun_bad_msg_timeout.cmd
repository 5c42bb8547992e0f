user=alice
cwd=/tmp/ivref/work
srun --msg-timeout=x true 
