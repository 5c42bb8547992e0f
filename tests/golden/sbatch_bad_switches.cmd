user=alice
cwd=/tmp/ivref/work
sbatch --switches=x@1 ok.sh 
