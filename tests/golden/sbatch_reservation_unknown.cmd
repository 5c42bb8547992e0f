user=alice
cwd=/srv/refwork
sbatch --reservation=resv ok.sh 
