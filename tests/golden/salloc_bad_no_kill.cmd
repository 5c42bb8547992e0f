user=alice
cwd=/tmp/ivref/work
salloc --no-kill=x true 
