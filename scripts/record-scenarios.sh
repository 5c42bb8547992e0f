#!/bin/bash
# Records every scenario (tests/scenarios/*.scn) from the live reference Slurm 22.05.8 into
# tests/scenarios/*.22.05: starts it (../shared/reference/slurm-ref, private config and
# port) unless it answers, then runs tests/scenario_replay.rs in record mode. As root.
# `scripts/record-scenarios.sh NAME...` records only those scenarios. One recording at a
# time uses the oracle (a lock): scenarios cancel their users' jobs, and their job ids must
# follow one another.
set -euo pipefail
cd "$(dirname "$0")/.."
REF=${SLURM_REF_DIR:-../shared/reference/slurm-ref}
export SLURM_CONF=/etc/slurm-ref/slurm.conf
if [ $# -gt 0 ]; then
    export BAI_SCENARIO_ONLY="$(IFS=,; echo "$*")"
fi
# The lock first: a controller busy with another recording may miss one sinfo, and starting
# the reference then would restart it under that recording.
exec 9>/tmp/bai-slurm-oracle.lock
flock 9
answers() {
    for _ in 1 2 3 4 5; do
        sinfo -h >/dev/null 2>&1 && return 0
        sleep 2
    done
    return 1
}
if ! answers; then
    # Without the lock's descriptor: daemons that inherited it would hold the lock for ever.
    (cd "$REF" && SLURM_REF_ETC=/etc/slurm-ref SLURM_REF_PORT=7817 ./start-slurm.sh 9>&-)
fi
sinfo -h >/dev/null || { echo "record-scenarios: the reference Slurm does not answer" >&2; exit 1; }
BAI_SCENARIO_RECORD=1 cargo test --test scenario_replay scenarios_against -- --nocapture
