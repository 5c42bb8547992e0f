user=alice
cwd=/srv/refwork
sbatch -L lic:1 ok.sh 
