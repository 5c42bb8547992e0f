user=alice
cwd=/tmp/ivref/work
srun --resv-ports=x true 
