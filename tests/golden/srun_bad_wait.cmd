user=alice
cwd=/tmp/ivref/work
srun -W x true 
