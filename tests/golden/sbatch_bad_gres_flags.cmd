user=alice
cwd=/tmp/ivref/work
sbatch --gres-flags=x ok.sh 
