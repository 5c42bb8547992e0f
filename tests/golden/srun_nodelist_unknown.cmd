user=alice
cwd=/srv/refwork
srun -w n9 true 
