#!/bin/bash
# Builds the .deb (cargo-deb) and the .rpm (cargo-generate-rpm) into target/packages/.
# Both hold /usr/bin/bai-slurm, the Slurm command links, man pages, bash/zsh/fish
# completions, an example /etc/bai-slurm/config.toml (a conffile) and a static musl build
# for job containers (/usr/lib/bai-slurm/bai-slurm-static). See docs/OPERATIONS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_DEB_VERSION=3.8.0
CARGO_GENERATE_RPM_VERSION=0.21.1
STATIC_TARGET=x86_64-unknown-linux-musl
OUT=target/packages

if ! command -v cargo-deb >/dev/null; then
    cargo install --locked "cargo-deb@$CARGO_DEB_VERSION"
fi
if ! command -v cargo-generate-rpm >/dev/null; then
    cargo install --locked "cargo-generate-rpm@$CARGO_GENERATE_RPM_VERSION"
fi
if ! grep -qx "$STATIC_TARGET" <<<"$(rustup target list --installed)"; then
    rustup target add "$STATIC_TARGET"
fi
if ! command -v musl-gcc >/dev/null; then
    echo "package.sh: musl-gcc is missing (Debian: apt-get install musl-tools); SQLite is C" >&2
    exit 1
fi

# The packaged man pages and completions must be the generated ones.
cargo build --release --locked
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
target/release/bai-slurm __generate "$fresh" >/dev/null
for d in man completions; do
    if ! diff -r "$fresh/$d" "$d" >/dev/null; then
        echo "package.sh: $d/ is stale; run 'cargo run -q -- __generate .' and commit" >&2
        exit 1
    fi
done

cargo build --release --locked --target "$STATIC_TARGET"
# cargo-deb takes built products only from target/release; the static build is staged.
mkdir -p target/static
cp "target/$STATIC_TARGET/release/bai-slurm" target/static/bai-slurm-static
# cargo-generate-rpm packages the files as they are; cargo-deb strips its own copies.
strip -s target/release/bai-slurm target/static/bai-slurm-static

rm -rf "$OUT"
mkdir -p "$OUT"
cargo deb --no-build --locked --output "$OUT/"
cargo generate-rpm --output "$OUT/"
ls -l "$OUT"
