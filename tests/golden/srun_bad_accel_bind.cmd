user=alice
cwd=/tmp/ivref/work
srun --accel-bind=x true 
