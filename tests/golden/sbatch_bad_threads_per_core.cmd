user=alice
cwd=/tmp/ivref/work
sbatch --threads-per-core=x ok.sh 
