#!/usr/bin/env bash
# A private two-node Slurm 22.05 on one machine: two slurmd on 127.0.0.2 / 127.0.0.3
# (CommunicationParameters=NoInAddrAny), no accounting.
set -euo pipefail
D=/tmp/mnslurm
RUN=$D/run; LOG=$D/log; SP=$D/spool
mkdir -p $RUN $LOG $SP/ctld $SP/d
chown -R slurm:slurm $SP/ctld $LOG
chmod 755 $D
HOST=$(hostname -s)
cat > $D/slurm.conf <<C
ClusterName=mncluster
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=slurm
SlurmdUser=root
SlurmctldPort=7837
SlurmdPort=7838
AuthType=auth/munge
AuthInfo=socket=$RUN/munge.sock
CredType=cred/munge
CommunicationParameters=NoInAddrAny
StateSaveLocation=$SP/ctld
SlurmdSpoolDir=$SP/d/%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1024
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MessageTimeout=10
InactiveLimit=0
KillWait=5
MinJobAge=300
Waittime=0
NodeName=node01 NodeHostname=$HOST NodeAddr=127.0.0.1 CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=4000 State=UNKNOWN
NodeName=node02 NodeHostname=$HOST NodeAddr=127.0.0.1 Port=7839 CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=4000 State=UNKNOWN
PartitionName=debug Nodes=node[01-02] Default=YES MaxTime=INFINITE State=UP
C
chmod 644 $D/slurm.conf
printf 'CgroupPlugin=cgroup/v1\nCgroupAutomount=no\n' > $D/cgroup.conf
export SLURM_CONF=$D/slurm.conf
if ! [[ -S $RUN/munge.sock ]]; then
  chown munge:munge $RUN; chmod 700 $RUN;
  runuser -u munge -- /usr/sbin/munged -f --socket=$RUN/munge.sock --pid-file=$RUN/munged.pid --log-file=$RUN/munged.log --seed-file=$RUN/munged.seed
  chown root:root $RUN; chmod 755 $RUN
fi
sleep 0.5
nohup setsid /usr/sbin/slurmctld -D </dev/null >>$LOG/slurmctld.stdout 2>&1 &
for i in $(seq 50); do scontrol ping >/dev/null 2>&1 && break; sleep 0.2; done
for n in node01 node02; do
  nohup setsid /usr/sbin/slurmd -D -N $n </dev/null >>$LOG/slurmd-$n.stdout 2>&1 &
done
for i in $(seq 100); do
  s=$(sinfo -h -o %t | sort -u | tr '\n' ' '); [[ $s == "idle " ]] && break; sleep 0.3
done
sinfo
