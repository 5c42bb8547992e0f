user=alice
cwd=/tmp/ivref/work
srun -T x true 
