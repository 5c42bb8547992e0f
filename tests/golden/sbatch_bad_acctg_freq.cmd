user=alice
cwd=/tmp/ivref/work
sbatch --acctg-freq=x ok.sh 
