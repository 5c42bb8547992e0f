user=alice
cwd=/tmp/ivref/work
srun --send-libs=x true 
