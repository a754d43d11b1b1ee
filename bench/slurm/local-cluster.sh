#!/bin/sh
# SPDX-License-Identifier: MIT
# A one-node Slurm cluster on 127.0.0.1 from Debian's packages (munge,
# slurmctld, slurmd, slurm-client), everything in one folder: its own
# munge key and socket, slurm.conf on free ports, state, spool, logs and
# pid files. Nothing outside the folder is read or written, so it runs
# beside any other Slurm or munge; it needs root (slurmd runs jobs as
# their user).
#
#   sh bench/slurm/local-cluster.sh start DIR   # then: export SLURM_CONF=DIR/slurm.conf
#   sh bench/slurm/local-cluster.sh stop DIR
#
# tests/test-slurm.sh (make check-slurm) runs the smoke sweep on it, and
# bench/sweep's runner comparison times a task group on it.
set -eu
cmd=${1:-} dir=${2:-}
[ -n "$dir" ] && { [ "$cmd" = start ] || [ "$cmd" = stop ]; } ||
  { echo "usage: local-cluster.sh start|stop DIR" >&2; exit 2; }

stop() {
  for p in slurmd slurmctld munged; do
    f=$dir/$p.pid
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null || true
    # at most 10 s for it to go
    k=0
    while kill -0 "$pid" 2>/dev/null && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$f"
  done
}
if [ "$cmd" = stop ]; then stop; exit 0; fi

[ "$(id -u)" = 0 ] || { echo "local-cluster.sh: needs root (munged, slurmd)" >&2; exit 1; }
for p in munged slurmctld slurmd sbatch; do
  command -v "$p" >/dev/null || PATH=$PATH:/usr/sbin
  command -v "$p" >/dev/null ||
    { echo "local-cluster.sh: no $p (apt-get install munge slurmctld slurmd slurm-client)" >&2; exit 1; }
done
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
mkdir -p "$dir/key" "$dir/run" "$dir/state" "$dir/spool"
chmod 755 "$dir" "$dir/run"
chmod 700 "$dir/key"
dd if=/dev/urandom of="$dir/key/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$dir/key/munge.key"
munged --force --socket="$dir/run/munge.socket" --key-file="$dir/key/munge.key" \
  --log-file="$dir/munged.log" --pid-file="$dir/munged.pid" --seed-file="$dir/key/munged.seed"
# two free ports, asked of the kernel
set -- $("${PYTHON:-/usr/bin/python3}" -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
host=$(hostname -s)
cat >"$dir/slurm.conf" <<CONF
ClusterName=hardsoft-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/run/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0,bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SlurmdParameters=config_overrides
MaxArraySize=4001
MinJobAge=600
NodeName=hsnode NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=500 State=UNKNOWN
PartitionName=hs Nodes=hsnode Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -i -f "$SLURM_CONF"
slurmd -N hsnode -f "$SLURM_CONF"
# ready when the node is idle (at most 30 s)
k=0
until sinfo -h -n hsnode -o %t 2>/dev/null | grep -q idle; do
  k=$((k + 1))
  if [ $k -gt 60 ]; then
    echo "local-cluster.sh: the node did not come up; $dir/slurmctld.log:" >&2
    tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2
    stop
    exit 1
  fi
  sleep 0.5
done
echo "local-cluster.sh: one node, $(nproc) CPUs, up: export SLURM_CONF=$dir/slurm.conf"
