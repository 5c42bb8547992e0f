#!/bin/bash
# CPython 3.13 for the Backend.AI 26.9 wheels on Debian 12 (bookworm ships none; backend.ai 25.6+
# needs >= 3.13), in about 30 s instead of a 10-minute source build: Debian trixie's own binary
# packages (python3.13 and what it depends on, including trixie's glibc), downloaded with a private
# apt configuration and an empty package database (the system's apt state is not touched),
# unpacked with dpkg-deb -x into PREFIX (nothing is installed on the host), and the interpreter's
# ELF header pointed at the unpacked loader and libraries (patchelf): that python3.13 runs
# trixie's glibc, the host's programs keep bookworm's. Packages are verified with the
# debian-archive-keyring that bookworm ships (it holds the trixie keys).
#   get-python.sh PREFIX        -> PREFIX/usr/bin/python3.13 (idempotent)
#   PYTHON_FROM_SOURCE=1 get-python.sh PREFIX   build trixie's source package instead (~6-10 min)
set -euo pipefail
PREFIX=${1:?usage: get-python.sh PREFIX}
CHECK='import ssl, sqlite3, ctypes, lzma, bz2, zlib, readline, uuid, venv, decimal, hashlib'
PY=$PREFIX/usr/bin/python3.13
if [ -x "$PY" ] && "$PY" -c "$CHECK" 2>/dev/null; then echo "python3.13 present: $PY"; exit 0; fi
export DEBIAN_FRONTEND=noninteractive
apt_install() {
  local missing=() p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  for i in $(seq 1 30); do
    [ "$i" = 1 ] && { apt-get update -qq || true; }
    apt-get install -y -qq --no-install-recommends "${missing[@]}" && return 0
    sleep 10
  done; return 1; }
MIRROR=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$MIRROR" ] || MIRROR=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list)
WORK=$PREFIX.work; rm -rf "$WORK" "$PREFIX"; mkdir -p "$WORK"/apt/{lists,archives}/partial
touch "$WORK/apt/status"
APTO=(-o "Dir::Etc::SourceList=$WORK/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$WORK/apt/lists" -o "Dir::State::status=$WORK/apt/status"
      -o "Dir::Cache::archives=$WORK/apt/archives" -o Dir::Etc::Preferences=/dev/null
      -o Dir::Etc::PreferencesParts=/dev/null -o APT::Install-Recommends=false)

if [ "${PYTHON_FROM_SOURCE:-0}" = 1 ]; then
  apt_install build-essential pkg-config xz-utils libssl-dev libffi-dev zlib1g-dev libbz2-dev libsqlite3-dev \
    liblzma-dev libreadline-dev libncurses-dev uuid-dev libgdbm-dev libexpat1-dev
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR trixie main" > "$WORK/apt/sources.list"
  apt-get "${APTO[@]}" update
  (cd "$WORK" && apt-get "${APTO[@]}" source --download-only python3.13)
  tar -C "$WORK" -xf "$(ls "$WORK"/python3.13_*.orig.tar.xz | head -1)"
  cd "$WORK"/Python-3.13*/
  ./configure --prefix="$PREFIX/usr" --with-ensurepip=install > "$WORK/configure.log" 2>&1
  make -j"$(nproc)" > "$WORK/make.log" 2>&1 || { tail -40 "$WORK/make.log"; exit 1; }
  make install > "$WORK/install.log" 2>&1
else
  apt_install patchelf
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR trixie main" > "$WORK/apt/sources.list"
  apt-get "${APTO[@]}" -qq update
  # the empty status file makes apt fetch every dependency down to libc6: the unpacked tree is complete
  apt-get "${APTO[@]}" -qq install -y --download-only python3.13 python3.13-venv python3.13-dev
  mkdir -p "$PREFIX"
  for d in "$WORK"/apt/archives/*.deb; do dpkg-deb -x "$d" "$PREFIX"; done
  LIB=$PREFIX/usr/lib/x86_64-linux-gnu
  # DT_RPATH (not RUNPATH) so the extension modules that python dlopens find trixie's libraries too
  patchelf --set-interpreter "$LIB/ld-linux-x86-64.so.2" --force-rpath --set-rpath "$LIB" "$PY"
fi
"$PY" -c "$CHECK"
rm -rf "$WORK"
echo "python3.13 ready: $("$PY" -VV | head -1) in $PREFIX"
