user=alice
cwd=/srv/refwork
sbatch -x n9 ok.sh 
