#!/bin/bash
# The whole test suite: formatting, lints, then unit, golden and end-to-end tests, real
# workflow engines (dask-jobqueue, Parsl, Snakemake) driving the commands, and the
# integration tests against a REAL Backend.AI (manager + Docker agent), which
# ci/backendai/up.sh brings up on 127.0.0.1 (idempotent: about a second when it already
# runs, about 20 s to restart it, 3-4 min on a fresh machine; needs root). It runs in the
# background while formatting, lints and the engines' venv are prepared. Golden tests
# print their score (`N/M identical`), hence --nocapture.
set -euo pipefail
cd "$(dirname "$0")/.."
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
cargo test --locked --no-fail-fast -- --nocapture
