#!/bin/bash
# Checks the HOST dockerd's default bridge (docker0), on which every container of the 23.09
# stack (ci/backendai/) runs, and recreates it when it is gone. Seen once while both stacks
# ran: shortly after the 26.9 stack's own dockerd started, docker0 had been deleted, and every
# 23.09 container then failed with `could not find bridge docker0`. This stack's dockerd uses
# its own bridge (bai26br0) and never docker0; whatever removed it, the host dockerd does not
# make it again until it restarts, so it is put back here as that dockerd had it (name,
# gateway and prefix from `docker network inspect bridge`).
#   host-bridge.sh     exit 0 when docker0 is there (or was repaired, said on stderr), or when
#                      no host dockerd runs; 1 when it is missing and could not be made
set -uo pipefail
SOCK=unix:///var/run/docker.sock
info=$(DOCKER_HOST=$SOCK timeout 20 docker network inspect bridge \
       -f '{{index .Options "com.docker.network.bridge.name"}} {{range .IPAM.Config}}{{.Subnet}} {{.Gateway}}{{end}}' 2>/dev/null) || exit 0
read -r name subnet gateway <<< "$info"
name=${name:-docker0}
[ -n "$subnet" ] || exit 0
if ip link show "$name" >/dev/null 2>&1 && ip -4 addr show "$name" | grep -q 'inet '; then exit 0; fi
# the gateway is the subnet's first address unless the daemon was told otherwise
addr=$(python3 -c 'import ipaddress,sys; n=ipaddress.ip_network(sys.argv[1]); g=sys.argv[2] if len(sys.argv)>2 and sys.argv[2] else str(n.network_address+1); print(f"{g}/{n.prefixlen}")' "$subnet" ${gateway:+"$gateway"})
echo "host-bridge.sh: the host dockerd's bridge $name was missing; recreating it ($addr)" >&2
ip link show "$name" >/dev/null 2>&1 || ip link add name "$name" type bridge || exit 1
ip -4 addr show "$name" | grep -q 'inet ' || ip addr add "$addr" dev "$name" || exit 1
ip link set "$name" up || exit 1
