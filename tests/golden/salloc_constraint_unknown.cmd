user=alice
cwd=/srv/refwork
salloc -C fast true 
