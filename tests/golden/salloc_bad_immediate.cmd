user=alice
cwd=/tmp/ivref/work
salloc --immediate=x true 
