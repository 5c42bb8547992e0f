#!/bin/bash
# The whole test suite: formatting, lints, then unit, golden and end-to-end tests, and real
# workflow engines (dask-jobqueue, Parsl) driving the commands.
# Golden tests print their score (`N/M identical`), hence --nocapture.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --check
cargo clippy --locked --all-targets -- -D warnings
# The workflow engines tests/engines.rs drives (pinned in tests/engines/requirements.txt).
./scripts/engines-venv.sh
cargo test --locked -- --nocapture
