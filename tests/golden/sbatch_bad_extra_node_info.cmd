user=alice
cwd=/tmp/ivref/work
sbatch -B 2:x ok.sh 
