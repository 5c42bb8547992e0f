user=alice
cwd=/srv/refwork
sbatch -w node01 -x node01 ok.sh 
