# bai-slurm: the Slurm command names are links to /usr/bin/bai-slurm. A file that is not a
# link (a Slurm installed outside the package manager) is left alone, with a warning.
for c in sbatch squeue scancel srun salloc sinfo sacct scontrol; do
    l=/usr/bin/$c
    if [ -L "$l" ] || [ ! -e "$l" ]; then
        ln -sfn bai-slurm "$l"
    else
        echo "bai-slurm: $l is not a link; left alone" >&2
    fi
done
# An upgrade restarts the system mode's service where it runs, so that the commands and the
# service are one version; its jobs run on (KillMode=process).
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload >/dev/null 2>&1 || true
    systemctl try-restart bai-slurm.service >/dev/null 2>&1 || true
fi
