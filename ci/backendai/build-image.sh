#!/bin/bash
# Build the job image ($BAI_IMAGE, default local/bai-batch:bookworm) from Debian packages only:
# debootstrap a minbase rootfs (cached as the Docker image bai-bookworm-rootfs:12), then
# image/Dockerfile on top. Rebuilds only when the package list, the Dockerfile or the baked-in
# launcher binary changed (a stamp label records them).
#   build-image.sh           build if needed
#   build-image.sh --check   exit 0 if the image is up to date, 1 if not (builds nothing)
# Env: BAI_IMAGE, ROOTFS (debootstrap dir), BAI_LAUNCHER_BIN (optional: bake this binary in
#      as /opt/bai-slurm/bin/bai-slurm; it must run on Debian 12: a static musl build or a
#      glibc build from this host).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
IMG=${BAI_IMAGE:-local/bai-batch:bookworm}
ROOTFS=${ROOTFS:-/tmp/bai-stack/rootfs}
# minbase already has bash, coreutils, util-linux (setpriv), findutils, grep, sed, tar, gzip, passwd
INCLUDE=python3-minimal,iproute2,procps,netcat-openbsd,ca-certificates,openssh-client
LAUNCHER=${BAI_LAUNCHER_BIN:-}
LSUM=none
if [ -n "$LAUNCHER" ]; then LSUM=$(sha256sum "$LAUNCHER" | cut -c1-16); fi
STAMP="$INCLUDE $(sha256sum "$HERE/image/Dockerfile" | cut -c1-16) launcher=$LSUM"
current() { docker image inspect -f '{{index .Config.Labels "bai-stack.stamp"}}' "$IMG" 2>/dev/null || true; }
if [ "$(current)" = "$STAMP" ]; then echo "image $IMG is up to date"; exit 0; fi
if [ "${1:-}" = --check ]; then echo "image $IMG needs a build"; exit 1; fi

if [ "$(docker image inspect -f '{{index .Config.Labels "bai-stack.include"}}' bai-bookworm-rootfs:12 2>/dev/null)" != "$INCLUDE" ]; then
  docker rmi -f bai-bookworm-rootfs:12 >/dev/null 2>&1 || true
  [ "$(cat "$ROOTFS/.bai-include" 2>/dev/null)" = "$INCLUDE" ] || rm -rf "$ROOTFS"
  command -v debootstrap >/dev/null || apt-get install -y --no-install-recommends debootstrap
  # the host's own Debian mirror (deb822 or one-line format)
  MIRROR=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$MIRROR" ] || MIRROR=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$MIRROR" ] || { echo "no Debian mirror found in /etc/apt" >&2; exit 1; }
  if [ ! -f "$ROOTFS/.bai-include" ]; then
    rm -rf "$ROOTFS"
    debootstrap --variant=minbase --include="$INCLUDE" bookworm "$ROOTFS" "$MIRROR"
    echo "$INCLUDE" > "$ROOTFS/.bai-include"
  fi
  rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/usr/share/doc/* \
         "$ROOTFS"/usr/share/locale/* "$ROOTFS"/usr/share/man/*
  tar -C "$ROOTFS" --exclude=./.bai-include -c . | docker import -c "LABEL bai-stack.include=$INCLUDE" - bai-bookworm-rootfs:12
fi

CTX=$(mktemp -d); trap 'rm -rf "$CTX"' EXIT
cp "$HERE/image/Dockerfile" "$CTX/"; mkdir "$CTX/bin"; touch "$CTX/bin/.keep"
if [ -n "$LAUNCHER" ]; then install -m 755 "$LAUNCHER" "$CTX/bin/bai-slurm"; fi
docker build -q --label "bai-stack.stamp=$STAMP" -t "$IMG" "$CTX"
echo "built $IMG ($STAMP)"
