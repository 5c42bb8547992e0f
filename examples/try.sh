#!/bin/bash
# Runs examples/hello.sh through sbatch on the embedded local backend and shows what
# squeue and sacct print on the way. Expects the Slurm command links on PATH
# (`bai-slurm install-links DIR`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
# The job's files are shown below; the directory goes when this script ends.
trap 'cd / && rm -rf "$work"' EXIT
cd "$work"
echo "\$ sbatch $here/hello.sh"
out=$(sbatch "$here/hello.sh")
echo "$out"
id=${out##* }
sleep 1
echo; echo "\$ squeue"; squeue
while squeue -h -j "$id" 2>/dev/null | grep -q .; do sleep 1; done
echo; echo "\$ sacct -j $id"; sacct -j "$id"
echo; echo "\$ cat $work/hello-$id.out"; cat "hello-$id.out"
