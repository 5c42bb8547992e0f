user=alice
cwd=/srv/refwork
sbatch --nodelist=n9 ok.sh 
