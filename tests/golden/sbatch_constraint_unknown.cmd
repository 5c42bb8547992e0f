user=alice
cwd=/srv/refwork
sbatch -C fast ok.sh 
