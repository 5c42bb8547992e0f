user=alice
cwd=/tmp/ivref/work
salloc --get-user-env=x true 
