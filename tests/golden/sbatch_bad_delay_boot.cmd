user=alice
cwd=/tmp/ivref/work
sbatch --delay-boot=x ok.sh 
