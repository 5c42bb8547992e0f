#!/bin/bash
# The whole test suite: formatting, lints, then unit, golden and end-to-end tests, real
# workflow engines (dask-jobqueue, Parsl, Snakemake) driving the commands, and the
# integration tests against REAL Backend.AI stacks (manager + Docker agent + storage-proxy)
# of both supported releases: the whole Backend.AI suite runs against 23.09.10 (API v7) and
# again against 26.9.6 (API v9).
#
# It needs root and changes the machine: it installs the Debian packages the tests use
# (below), starts dockerd and the two Backend.AI stacks (ci/backendai/up.sh and
# ci/backendai26/up.sh, side by side, in parallel with the builds: a second or two each when
# they already run; 4 and 6-10 min on a fresh machine), and makes test users (baitest-*, and
# alice and bob for the scenario replays).
# `ci/backendai/down.sh` and `ci/backendai26/down.sh` stop the stacks again. Golden tests
# print their score (`N/M identical`), hence --nocapture. No test skips: one whose real
# component is missing fails, naming it; a Backend.AI test that fails is named with the
# release it failed against.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
    echo "scripts/test.sh: run it as root: it installs Debian packages, starts dockerd and a Backend.AI stack, and makes test users (ci/backendai/down.sh stops the stack)" >&2
    exit 1
fi
# Man page lint, completion shells, packaging tools (rpm, a static busybox for the rpm
# scriptlet check, musl for the static build), Python for the workflow engines, a real
# Secret Service (GNOME Keyring on a private session bus) for `bai-slurm login`'s keyring,
# MPICH (mpiexec inside a multi-node job, tests/multinode_steps.rs), and what the hostile
# neighbour tests use (useradd, mount, pkill, setsid), systemd-analyze for the packages'
# unit.
want=(mandoc groff-base man-db zsh fish bash-completion rpm busybox-static musl-tools file
      python3-venv gnome-keyring dbus-daemon mpich libmpich-dev passwd mount procps util-linux
      systemd)
missing=()
# (a package removed but not purged still answers dpkg -s: ask for its status)
for p in "${want[@]}"; do
    dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "scripts/test.sh: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
        echo "scripts/test.sh: could not install ${missing[*]} (apt-get install them, then run again)" >&2
        exit 1
    fi
fi
if ! rustup component add rustfmt clippy >/dev/null 2>&1 \
    || ! rustup target add x86_64-unknown-linux-musl >/dev/null 2>&1; then
    echo "scripts/test.sh: rustfmt, clippy and the x86_64-unknown-linux-musl target are needed (rustup component add rustfmt clippy; rustup target add x86_64-unknown-linux-musl)" >&2
    exit 1
fi
# The scenario replays (tests/scenario_replay.rs) run as the reference cluster's users, whose
# names and ids are in the recordings: alice (1001) and bob (1002).
ensure_user() {
    local name=$1 id=$2 holder
    if ! getent passwd "$name" >/dev/null; then
        holder=$(getent passwd "$id" | cut -d: -f1) || holder="" # no such uid: free
        case "$holder" in
            "") ;;
            # one of the users the hostile-neighbour tests make for themselves: they make
            # it again, under another uid
            baitest-*) userdel -r "$holder" >/dev/null 2>&1 || userdel "$holder" ;;
            *) echo "scripts/test.sh: uid $id is $holder's; the scenario recordings need it for $name" >&2
               exit 1 ;;
        esac
        useradd -m -u "$id" -U -s /bin/bash "$name"
    fi
}
for u in alice:1001 bob:1002; do
    name=${u%:*} id=${u#*:}
    ensure_user "$name" "$id"
    if [ "$(id -u "$name")" != "$id" ]; then
        echo "scripts/test.sh: user $name must have uid $id (the scenario recordings name it), it has $(id -u "$name")" >&2
        exit 1
    fi
done
ci/backendai/up.sh -q &
stack23=$!
ci/backendai26/up.sh -q &
stack26=$!
cargo fmt --check
cargo clippy --locked --all-targets -- -D warnings
# The packages' static build (musl, whose libc lacks some of glibc's calls) is compiled by
# scripts/package-check.sh after the suites; its lint (`cargo clippy --target
# x86_64-unknown-linux-musl`) is left to the developer: 2 minutes CI's 90 do not spare.
# The workflow engines tests/engines.rs drives (pinned in tests/engines/requirements.txt).
./scripts/engines-venv.sh
if ! wait $stack23; then
    echo "scripts/test.sh: the Backend.AI 23.09 test stack did not come up (ci/backendai/up.sh; log above)" >&2
    exit 1
fi
if ! wait $stack26; then
    echo "scripts/test.sh: the Backend.AI 26.9 test stack did not come up (ci/backendai26/up.sh; log above)" >&2
    exit 1
fi
failed=()
# The Backend.AI suite: the tests that talk to a stack (endpoint, keys and job image from
# the stack's env.sh). The local backend's tests clear their environment, so the stacks'
# variables reach only these.
BACKENDAI_TESTS=(backendai_client backendai_jobs backendai_login bai_multinode bai_interactive
                 option_effects)
local_tests=(--lib --bins)
for f in tests/*.rs; do
    t=$(basename "$f" .rs)
    # the command fuzzer runs after, on the release build, at full size
    [[ " ${BACKENDAI_TESTS[*]} fuzz_commands " == *" $t "* ]] || local_tests+=(--test "$t")
done
# The scenario check against the live Slurm runs beside the local backend's tests: most of
# it is waiting for Slurm's scheduler. The Backend.AI suites run alone, one after the
# other: a stack's manager is CPU-bound, and the 23.09 one loses its agent's heartbeats
# (and then schedules nothing) when other work starves it of CPU.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
cargo test --locked --no-run
backendai_suite() {  # RELEASE-DIR API-VERSION: the whole Backend.AI suite against that stack
    # The two stacks run side by side; the 23.09 one needs the host dockerd's docker0
    # bridge, which was once found deleted after the 26.9 stack's own dockerd started:
    # checked (and put back) before each suite.
    ci/backendai26/host-bridge.sh
    # The stack came up beside the builds, maybe an hour ago: a server of it that died since
    # (CI once found the 26.9 manager's port refusing) is named with its log's end and
    # started again (up.sh returns at once when everything runs and the agent is ALIVE).
    "$1/up.sh" -q || return 1
    # (sessions a killed run left would hold the agent's CPUs)
    (. "$1/env.sh" && python3 ci/backendai/purge-sessions.py "$2") || return 1
    (. "$1/env.sh" && cargo test --locked --no-fail-fast $(printf -- '--test %s ' "${BACKENDAI_TESTS[@]}") -- --nocapture)
}
# 1. The local backend's tests, and beside them the scenario recordings checked against the
# live Slurm 22.05.8 they were recorded from (../shared/reference/slurm-ref, installed and
# started clean here, stopped after; output kept apart and shown when it ends): a recording
# that no longer says what Slurm says fails (tests/scenarios/ORACLE-VARIES lists the steps
# where Slurm itself answers one way or another). About 11 minutes.
scripts/record-scenarios.sh --check >"$logs/oracle" 2>&1 &
oracle=$!
cargo test --locked --no-fail-fast "${local_tests[@]}" -- --nocapture \
    || failed+=("the local backend's tests")
oracle_ok=1
wait $oracle || oracle_ok=0
printf '\n==== the scenario recordings against the live Slurm 22.05.8 (ran beside the local tests)\n'
cat "$logs/oracle"
[ $oracle_ok = 1 ] || failed+=("the scenario recordings against the live Slurm 22.05.8 (scripts/record-scenarios.sh --check)")
# 2. The whole Backend.AI suite against 23.09, then against 26.9.
backendai_suite ci/backendai v7.20230615 \
    || failed+=("the Backend.AI tests against Backend.AI 23.09.10 (ci/backendai)")
backendai_suite ci/backendai26 v9.20250722 \
    || failed+=("the Backend.AI tests against Backend.AI 26.9.6 (ci/backendai26)")
(cd ../shared/reference/slurm-ref && ./stop-slurm.sh >/dev/null 2>&1) || true
if [ ${#failed[@]} -gt 0 ]; then
    printf 'scripts/test.sh: FAILED: %s\n' "${failed[@]}" >&2
    exit 1
fi
# The process-level fuzzer over every command and scontrol keyword (tests/fuzz_commands.rs):
# 100,000 runs, each its own process with a deadline (a million is about 12 minutes on 2
# CPUs, more than CI's 90 minutes leave; FUZZ_COMMANDS_RUNS=1000000 for that); it prints
# its counts of panics and hangs and fails on any. Plus the release build (whose
# dependencies scripts/package-check.sh then reuses).
FUZZ_COMMANDS_RUNS=${FUZZ_COMMANDS_RUNS:-100000} cargo test --release --locked --test fuzz_commands
