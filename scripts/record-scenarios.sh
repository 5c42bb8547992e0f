#!/bin/bash
# Records every scenario (tests/scenarios/*.scn) from the live reference Slurm 22.05.8 into
# tests/scenarios/*.22.05, or with --check compares the committed recordings with what it
# says now (tests/scenario_replay.rs's BAI_SCENARIO_VERIFY mode: fails on any step that
# differs and is not in tests/scenarios/ORACLE-VARIES). As root.
#
# Both restart the reference (../shared/reference/slurm-ref, private config and port 7817)
# from a clean state, so that its job ids start at 1 and its priorities at the top again,
# and play every scenario in order: a scenario's job ids and priorities are then the same
# at each recording and each check. `scripts/record-scenarios.sh NAME...` still plays them
# all but keeps only those recordings. One recording or check at a time uses the oracle (a
# lock).
set -euo pipefail
cd "$(dirname "$0")/.."
REF=${SLURM_REF_DIR:-../shared/reference/slurm-ref}
export SLURM_CONF=/etc/slurm-ref/slurm.conf
mode=record
if [ "${1:-}" = --check ]; then
    mode=check
    shift
fi
if [ $# -gt 0 ]; then
    export BAI_SCENARIO_KEEP="$(IFS=,; echo "$*")"
fi
exec 9>/tmp/bai-slurm-oracle.lock
flock 9
start_clean() {
    # Without the lock's descriptor: daemons that inherited it would hold the lock for ever.
    (cd "$REF" && ./stop-slurm.sh 9>&- >/dev/null) || true
    (cd "$REF" && SLURM_REF_ETC=/etc/slurm-ref SLURM_REF_PORT=7817 ./start-slurm.sh --clean 9>&-)
    for _ in $(seq 30); do
        sinfo -h >/dev/null 2>&1 && break
        sleep 1
    done
    sinfo -h >/dev/null || { echo "record-scenarios: the reference Slurm does not answer" >&2; exit 1; }
}
replay() {
    cargo test --locked --test scenario_replay scenarios_against_slurm_22_05 -- --nocapture
}
start_clean
if [ $mode = record ]; then
    BAI_SCENARIO_RECORD=1 replay
    exit
fi
# A step that differs is played once more from a clean start (the scenarios up to the last
# such step): only one that differs again
# fails (the oracle's own races are rare, a recording that is no longer true differs each
# time).
differed=$(mktemp)
trap 'rm -f "$differed"' EXIT
if BAI_SCENARIO_VERIFY=1 BAI_SCENARIO_VERIFY_DIFFERED="$differed" replay; then
    exit 0
fi
[ -s "$differed" ] || exit 1
echo "record-scenarios: $(wc -l <"$differed" | tr -d ' ') steps differed; playing the scenarios again from a clean start, up to the last of those" >&2
start_clean
BAI_SCENARIO_VERIFY=1 BAI_SCENARIO_VERIFY_AGAIN="$differed" replay
