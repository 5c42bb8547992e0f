#!/bin/bash
# The whole test suite: formatting, lints, then unit, golden and end-to-end tests.
# Golden tests print their score (`N/M identical`), hence --nocapture.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked -- --nocapture
