#!/bin/bash
# Records every scenario (tests/scenarios/*.scn) from the live reference Slurm 22.05.8 into
# tests/scenarios/*.22.05: starts it (../shared/reference/slurm-ref, private config and
# port) unless it answers, then runs tests/scenario_replay.rs in record mode. As root.
set -euo pipefail
cd "$(dirname "$0")/.."
REF=${SLURM_REF_DIR:-../shared/reference/slurm-ref}
export SLURM_CONF=/etc/slurm-ref/slurm.conf
if ! sinfo -h >/dev/null 2>&1; then
    (cd "$REF" && SLURM_REF_ETC=/etc/slurm-ref SLURM_REF_PORT=7817 ./start-slurm.sh)
fi
sinfo -h >/dev/null || { echo "record-scenarios: the reference Slurm does not answer" >&2; exit 1; }
BAI_SCENARIO_RECORD=1 cargo test --test scenario_replay scenarios_against -- --nocapture
