user=alice
cwd=/srv/refwork
sbatch --hold -w node01 ok.sh 
