#!/usr/bin/env bash
# bai-slurm's local backend against a REAL Slurm 22.05 on the same machine: per-command
# latency (median and p90) of sbatch, squeue, sinfo, sacct, scontrol show job and scancel
# with an empty queue and with Q pending jobs, the time to submit Q jobs one after another,
# and the time from submitting J trivial jobs until sacct shows them all COMPLETED.
# Prints a table (ratio = bai-slurm / Slurm, < 1 means bai-slurm is faster) and writes it
# to target/bench-vs-slurm.md. This script sets the two up and tears them down; the
# scenario and the measuring are scripts/bench_vs_slurm.py.
#
#   sudo scripts/bench-vs-slurm.sh                        # 30 runs, Q=200, J=50 (3 times)
#   sudo scripts/bench-vs-slurm.sh --runs 10 --queue 50 --jobs 20 --repeats 1   # quicker
#   sudo scripts/bench-vs-slurm.sh --runs 15 --queue 2000,10000 --jobs 50 --repeats 1
#                                        # queues of 2,000 then 10,000 (about 40 min)
#   sudo scripts/bench-vs-slurm.sh --system ...   # bai-slurm in system mode: every command
#                                        # a request to `bai-slurm service` (started here)
#
# Needs root: real Slurm is started with the reference recipe (slurm-ref/start-slurm.sh:
# Debian 12 packages, munge, MariaDB, slurmdbd, slurmctld, slurmd; ~3-10 s) and stopped
# again at the end, also on failure. Not part of CI or scripts/test.sh: it takes about five
# minutes and owns the machine's reference Slurm while it runs. Both run at the same time
# (each idle while the other is measured); latency runs alternate between them, so that
# other load on the machine skews neither side's numbers. Measure on an otherwise quiet
# machine all the same.
# SLURM_REF_DIR: where start-slurm.sh and stop-slurm.sh are (default below).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SYSTEM=0
if [[ ${1:-} == --system ]]; then
    SYSTEM=1
    shift
fi

REF=${SLURM_REF_DIR:-/work/shared/reference/slurm-ref}
# A private config dir and ports, as capture-golden.sh uses: anyone else on this machine
# running a plain `sbatch` (default /etc/slurm/slurm.conf, port 6817) cannot add jobs to
# the cluster we measure.
REF_ETC=/etc/slurm-ref
REF_PORT=7817

if [[ $(id -u) != 0 ]]; then
    echo "bench-vs-slurm: run as root (it starts slurmctld, slurmd, ...)" >&2
    exit 1
fi
for f in start-slurm.sh stop-slurm.sh; do
    if [[ ! -x $REF/$f ]]; then
        echo "bench-vs-slurm: $REF/$f missing (set SLURM_REF_DIR)" >&2
        exit 1
    fi
done
# The reference Slurm is shared: if someone already runs it, measuring (and then stopping
# it) would disturb them, and their jobs would disturb the numbers.
if [[ -s /run/slurm-ref/slurmctld.pid ]] && kill -0 "$(cat /run/slurm-ref/slurmctld.pid)" 2>/dev/null; then
    echo "bench-vs-slurm: the reference Slurm already runs (/run/slurm-ref/slurmctld.pid);" \
        "stop it first: $REF/stop-slurm.sh" >&2
    exit 1
fi

cargo build --release --quiet
BAI=$ROOT/target/release/bai-slurm

T=$(mktemp -d /tmp/bench-vs-slurm.XXXXXX)
chmod 755 "$T"
mkdir -p "$T/bai/bin" "$T/bai/work" "$T/slurm/work"
"$BAI" install-links --links-only "$T/bai/bin" >/dev/null

# The environments the commands run in (the helper reads them from files): minimal and
# alike, since sbatch copies its whole environment into every job. Each side sees only its
# own configuration.
SYS_PATH=/usr/sbin:/usr/bin:/sbin:/bin
BASE_ENV=(HOME="$T" USER=root LOGNAME=root LANG=C TZ=UTC)
SLURM_ENV=("${BASE_ENV[@]}" PATH="$SYS_PATH" SLURM_CONF="$REF_ETC/slurm.conf")
# Like tests/harness/mod.rs: private config and state, and no site config, so neither the
# user's own jobs nor /etc/bai-slurm are involved.
BAI_ENV=("${BASE_ENV[@]}" PATH="$T/bai/bin:$SYS_PATH"
    BAI_SLURM_CONFIG="$T/bai/config.toml"
    BAI_SLURM_STATE_DIR="$T/bai/state"
    BAI_SLURM_SYSTEM_CONFIG="$T/bai/no-system.toml")
service_pid=

slurm_started=0
cleanup() {
    local rc=$?
    if ((slurm_started)); then
        echo "bench-vs-slurm: stopping the reference Slurm" >&2
        "$REF/stop-slurm.sh" >/dev/null 2>&1 || true
    fi
    # After a failure bai-slurm's jobs (the sleeping blocker) may still run: cancel them.
    # Removing the state directory then makes its queue runner exit within a second.
    if [[ -d $T/bai/state ]]; then
        timeout 20 env -i "${BAI_ENV[@]}" "$T/bai/bin/scancel" -u root >/dev/null 2>&1 || true
        sleep 1
    fi
    if [[ -n $service_pid ]]; then
        kill "$service_pid" 2>/dev/null || true
    fi
    rm -rf "$T"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- real Slurm
# --clean: empty slurmctld state and accounting DB, so sacct sees only our jobs and job ids
# restart at 1, as on bai-slurm's fresh state directory. The settings go to start-slurm.sh
# only, not into our environment (sbatch would copy them into the jobs).
slurm_started=1
if ! SLURM_REF_ETC=$REF_ETC SLURM_REF_PORT=$REF_PORT "$REF/start-slurm.sh" --clean \
    >"$T/start-slurm.log" 2>&1; then
    cat "$T/start-slurm.log" >&2
    echo "bench-vs-slurm: the reference Slurm did not start (log above)" >&2
    exit 1
fi
# Slurm's default MaxJobCount (10,000, finished jobs included for MinJobAge) would refuse
# the queues measured here: raise it, as a site with such queues does. It takes a restart
# of slurmctld (started as start-slurm.sh starts it).
echo "MaxJobCount=250000" >>"$REF_ETC/slurm.conf"
kill "$(cat /run/slurm-ref/slurmctld.pid)"
for _ in $(seq 100); do
    kill -0 "$(cat /run/slurm-ref/slurmctld.pid)" 2>/dev/null || break
    sleep 0.1
done
SLURM_CONF=$REF_ETC/slurm.conf nohup setsid /usr/sbin/slurmctld -D </dev/null \
    >>/var/log/slurm-ref/slurmctld.stdout 2>&1 &
echo $! >/run/slurm-ref/slurmctld.pid
# (outputs read whole: under pipefail, `scontrol ... | grep -q` fails when grep stops early)
for _ in $(seq 100); do
    [[ $(env -i "${SLURM_ENV[@]}" scontrol ping 2>/dev/null) == *UP* ]] && break
    sleep 0.2
done
[[ $(env -i "${SLURM_ENV[@]}" scontrol show config) =~ MaxJobCount\ *=\ 250000 ]] || {
    echo "bench-vs-slurm: slurmctld did not come back with MaxJobCount=250000" >&2
    exit 1
}
# bai-slurm's node gets the shape of Slurm's node01 (CPUs, RealMemory).
read -r CPUS MEM < <(env -i "${SLURM_ENV[@]}" sinfo -h -N -o '%c %m' | head -1)
SLURM_VERSION=$(env -i "${SLURM_ENV[@]}" sinfo --version)
echo "reference Slurm up: $SLURM_VERSION, node01 CPUs=$CPUS RealMemory=$MEM"

# ---------------------------------------------------------------- bai-slurm, local backend
# Same node shape as Slurm's. idle_exit: the queue runner stays up through the whole run,
# as slurmctld does, so no measured command pays for starting it.
cat >"$T/bai/config.toml" <<EOF
cluster_name = "benchcluster"
[local]
node_name = "node01"
cpus = $CPUS
memory_mb = $MEM
idle_exit = 600
EOF
if ((SYSTEM)); then
    # The service holds the state; the commands only talk to it.
    printf 'mode = "system"\nsocket = "%s"\nstate_dir = "%s"\n' \
        "$T/bai/run/local.sock" "$T/bai/state" >>"$T/bai/config.toml"
    env -i PATH="$SYS_PATH" BAI_SLURM_CONFIG="$T/bai/config.toml" \
        BAI_SLURM_SYSTEM_CONFIG="$T/bai/no-system.toml" "$BAI" service \
        >"$T/service.log" 2>&1 &
    service_pid=$!
    for _ in $(seq 100); do
        [[ -S $T/bai/run/local.sock ]] && break
        sleep 0.1
    done
    [[ -S $T/bai/run/local.sock ]] || { cat "$T/service.log" >&2; exit 1; }
fi

# ---------------------------------------------------------------- measure
mode_note=""
if ((SYSTEM)); then
    mode_note=", system mode (every command a request to bai-slurm service)"
fi
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- src Cargo.toml Cargo.lock || commit="$commit + uncommitted changes"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
header="Measured $(date -u '+%Y-%m-%d %H:%M UTC') on one machine: $(nproc) CPUs ($cpu), \
Linux $(uname -r). Real Slurm: $SLURM_VERSION (Debian 12 packages; slurmctld, slurmd, \
slurmdbd with MariaDB; one node of $CPUS CPUs). bai-slurm: local backend at $commit, \
release build, one node of $CPUS CPUs$mode_note. Generated by scripts/bench-vs-slurm.sh${*:+ $*}."
printf '%s\n' "${SLURM_ENV[@]}" >"$T/slurm.env"
printf '%s\n' "${BAI_ENV[@]}" >"$T/bai.env"
mkdir -p target
python3 scripts/bench_vs_slurm.py --slurm /usr/bin "$T/slurm/work" "$T/slurm.env" \
    --bai "$T/bai/bin" "$T/bai/work" "$T/bai.env" \
    --md target/bench-vs-slurm.md --header "$header" "$@" </dev/null
