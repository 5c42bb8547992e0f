user=alice
cwd=/srv/refwork
sbatch --reservation=resv -L lic:1 -C fast ok.sh 
