#!/usr/bin/env bash
# capture NAME CMD... : runs CMD as alice in /tmp/mnwork, records stdout/stderr/rc/cmd
export SLURM_CONF=/tmp/mnslurm/slurm.conf
G=/tmp/mnslurm/golden
cap() {
  local name=$1; shift
  printf '%q ' "$@" > $G/$name.cmd; echo "(alice)" >> $G/$name.cmd
  (cd /tmp/mnwork && timeout 60 runuser -u alice -- env SLURM_CONF=$SLURM_CONF "$@" >$G/$name.stdout 2>$G/$name.stderr); echo $? > $G/$name.rc
  echo "== $name rc=$(cat $G/$name.rc)"
}
