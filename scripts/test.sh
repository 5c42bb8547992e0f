#!/bin/bash
# The whole test suite: formatting, lints, then unit, golden and end-to-end tests, real
# workflow engines (dask-jobqueue, Parsl, Snakemake) driving the commands, and the
# integration tests against a REAL Backend.AI (manager + Docker agent).
#
# It needs root and changes the machine: it installs the Debian packages the tests use
# (below), starts dockerd and the Backend.AI 23.09 stack (ci/backendai/up.sh: about a second
# when it already runs, 3-4 min on a fresh machine), and makes test users (baitest-*, and
# alice and bob for the scenario replays).
# `ci/backendai/down.sh` stops the stack again. Golden tests print their score
# (`N/M identical`), hence --nocapture. No test skips: one whose real component is missing
# fails, naming it.
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
# neighbour tests use (useradd, mount, pkill, setsid).
want=(mandoc groff-base man-db zsh fish bash-completion rpm busybox-static musl-tools file
      python3-venv gnome-keyring dbus-daemon mpich libmpich-dev passwd mount procps util-linux)
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
        holder=$(getent passwd "$id" | cut -d: -f1)
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
stack=$!
cargo fmt --check
cargo clippy --locked --all-targets -- -D warnings
# The workflow engines tests/engines.rs drives (pinned in tests/engines/requirements.txt).
./scripts/engines-venv.sh
if ! wait $stack; then
    echo "scripts/test.sh: the Backend.AI test stack did not come up (ci/backendai/up.sh; log above)" >&2
    exit 1
fi
# endpoint, keys and job image for tests/backendai_client.rs (the local backend's tests
# clear their environment, so these reach only the tests meant for Backend.AI)
. ci/backendai/env.sh
# Everything but the command fuzzer, which runs after, on the release build, at full size.
cargo test --locked --no-fail-fast -- --nocapture --skip fuzz_commands
# The process-level fuzzer over every command and scontrol keyword (tests/fuzz_commands.rs):
# a million runs, each its own process with a deadline; it prints its counts of panics and
# hangs and fails on any. About 10 minutes on 2 CPUs, plus the release build (whose
# dependencies scripts/package-check.sh then reuses).
FUZZ_COMMANDS_RUNS=1000000 cargo test --release --locked --test fuzz_commands
