user=alice
cwd=/srv/refwork
sbatch --exclude=node01 ok.sh 
