user=alice
cwd=/srv/refwork
srun --reservation=resv true 
