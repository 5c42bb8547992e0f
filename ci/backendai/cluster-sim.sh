#!/bin/bash
# A stand-in for a Backend.AI 2-container cluster session, without the manager's scheduler
# (for when the test stack's agent is busy): two containers of the job image ($BAI_IMAGE)
# named main1 and sub1 on a bridge network of their own, each with the agent's dropbear on
# port 2200, the work user (uid 1000) and a cluster keypair set up as the 23.09 agent and
# entrypoint set them up. Then this build's launcher runs a job in main1 as a session's
# startup command would: `srun -N 2` must reach sub1 over SSH.
#   cluster-sim.sh [path/to/bai-slurm]      (default target/debug/bai-slurm)
# Leaves nothing behind (containers and network are removed).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${1:-$HERE/../../target/debug/bai-slurm}
IMG=${BAI_IMAGE:-local/bai-batch:bookworm}
RUNNER=$(ls -d "${BAI_STATE:-/tmp/bai-stack}"/venv/lib/python3*/site-packages/ai/backend/runner | head -1)
D=$(mktemp -d); NET=bai-sim-$$
cleanup() { docker rm -f "$NET-main1" "$NET-sub1" >/dev/null 2>&1 || true; docker network rm "$NET" >/dev/null 2>&1 || true; rm -rf "$D"; }
trap cleanup EXIT
[ -n "${KEEP:-}" ] && trap - EXIT   # KEEP=1: leave the containers for a look
cp "$RUNNER/dropbear.ubuntu22.04.x86_64.bin" "$D/dropbear"; cp "$RUNNER/dropbearkey.ubuntu22.04.x86_64.bin" "$D/dropbearkey"
cp "$BIN" "$D/bai-slurm"; ln -s bai-slurm "$D/srun"; chmod 755 "$D" "$D"/*
ssh-keygen -q -t rsa -b 2048 -N "" -f "$D/id_cluster" -m PEM
cat > "$D/setup.sh" <<'SETUP'
#!/bin/bash
set -e
groupadd -g 1000 work; useradd -s /bin/bash -d /home/work -M -r -u 1000 -g work -o -c User work 2>/dev/null
mkdir -p /home/work/.ssh /home/config/ssh /tmp/dropbear
cp /mnt/id_cluster /mnt/id_cluster.pub /home/config/ssh/; cp /mnt/id_cluster.pub /home/work/.ssh/authorized_keys
printf 'Host main*\n\tPort 2200\n\tStrictHostKeyChecking no\n\tIdentityFile /home/config/ssh/id_cluster\n\nHost sub*\n\tPort 2200\n\tStrictHostKeyChecking no\n\tIdentityFile /home/config/ssh/id_cluster\n' > /home/work/.ssh/config
chown -R 1000:1000 /home/work /home/config/ssh /tmp/dropbear; chmod 700 /home/work/.ssh; chmod 600 /home/config/ssh/id_cluster /home/work/.ssh/authorized_keys
su work -s /bin/sh -c '/mnt/dropbearkey -t rsa -f /tmp/dropbear/dropbear_rsa_host_key >/dev/null 2>&1; setsid /mnt/dropbear -r /tmp/dropbear/dropbear_rsa_host_key -E -F -g -w -K 15 -I 0 -p 0.0.0.0:2200 >/tmp/dropbear.log 2>&1 &'
SETUP
chmod 755 "$D/setup.sh"
docker network create "$NET" >/dev/null
for h in main1 sub1; do
  docker run -d --init --name "$NET-$h" --hostname $h --network "$NET" --network-alias $h -v "$D:/mnt:ro" "$IMG" sleep 600 >/dev/null
  docker exec "$NET-$h" /mnt/setup.sh
done
for i in $(seq 50); do
  docker exec "$NET-main1" bash -c 'echo > /dev/tcp/sub1/2200' 2>/dev/null && break; sleep 0.2
done
b64() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
META=$(printf '{"v":1,"job_id":4242,"user":"work","uid":1000,"gid":1000,"cluster":"sim","kill_wait":2,"spec":{"name":"sim","work_dir":"/home/work","nodes_min":2}}' | b64)
SCRIPT=$(printf '#!/bin/bash\nsrun -N 2 hostname | sort\nsrun -N 2 -l bash -c '"'"'echo $SLURMD_NODENAME $SLURM_NODEID $SLURM_STEP_NODELIST'"'"' | sort\nsrun -N 2 -n 2 bash -c '"'"'exit $SLURM_NODEID'"'"'\necho rc=$?\n' | b64)
docker exec -u 1000 -w /home/work -e HOME=/tmp/submit-home -e BAI_SLURM_PATH=/mnt:/usr/bin:/bin \
  -e BACKENDAI_CLUSTER_HOST=main1 -e BACKENDAI_CLUSTER_HOSTS=sub1,main1 -e BAI_SLURM_SCRIPT="$SCRIPT" \
  "$NET-main1" /mnt/bai-slurm __bai-launch "$META"
OUT=$(docker exec "$NET-main1" cat /home/work/slurm-4242.out)
echo "$OUT"
# Nothing of the job may be left in sub1 once the launcher is done: no step server, no task.
LEFT=$(docker exec "$NET-sub1" ps -eo args= | grep -c -E '__stepd|^bash -c' || true)
WANT=$'main1\nsub1\n0: main1 0 main1,sub1\n1: sub1 1 main1,sub1\nsrun: error: sub1: task 1: Exited with exit code 1\nrc=1'
if [ "$OUT" = "$WANT" ] && [ "$LEFT" = 0 ]; then echo "cluster-sim: PASS"; else echo "cluster-sim: FAIL (left in sub1: $LEFT)"; exit 1; fi
