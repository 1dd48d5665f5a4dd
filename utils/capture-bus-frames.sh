#!/usr/bin/env bash
# Captures Redis 7.0 cluster bus frames into tests/assets/cluster/frames (the codec's unit-test
# corpus). Three Debian redis-server nodes (A, B, C) run in a temp dir, each announcing a relay
# port as its bus port, so every link passes through utils/cluster-bus-relay.py, which writes
# each frame to a file. The scenario: MEET, slots on A and B (PING/PONG with gossip and the
# hostname extension), C replicates A, PUBLISH and SPUBLISH, a manual failover of A to C
# (MFSTART, FAILOVER_AUTH_REQUEST/ACK), a takeover back to A while C is stopped, C restarted with
# its stale claim (answered with UPDATE), then C is killed (PFAIL, then FAIL).
# Usage: utils/capture-bus-frames.sh [redis-server] [outdir]   (ports 23701-23723)
set -eu
cd "$(dirname "$0")/.."
SERVER=${1:-/usr/bin/redis-server}
OUT=${2:-tests/assets/cluster/frames}
CLI="redis-cli -h 127.0.0.1"
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
rm -rf "$OUT"; mkdir -p "$OUT"
python3 utils/cluster-bus-relay.py "$OUT" 23721:23711 23722:23712 23723:23713 --keep 2 --seconds 120 &
pids+=($!)
start_node() {  # start_node N: node N (1 = A, 2 = B, 3 = C) in $tmp/N, its pid appended to pids
  local n=$1 name
  name=$(printf "\\x$(printf %x $((96 + n)))")  # a, b, c
  mkdir -p "$tmp/$n"
  "$SERVER" --port 2370$n --bind 127.0.0.1 --dir "$tmp/$n" --cluster-enabled yes \
    --cluster-config-file nodes.conf --cluster-port 2371$n --cluster-announce-bus-port 2372$n \
    --cluster-announce-hostname "node-$name.example" --cluster-node-timeout 1500 \
    --save "" --appendonly no --daemonize no --logfile "$tmp/$n/log" &
  pids+=($!)
  pid[$n]=$!
}
declare -a pid
for n in 1 2 3; do start_node $n; done
wait_until() {  # bounded wait: 100 tries of 0.1 s
  local i
  for i in $(seq 1 100); do eval "$1" && return 0; sleep 0.1; done
  echo "timed out: $1" >&2; return 1
}
for n in 1 2 3; do wait_until "$CLI -p 2370$n ping >/dev/null 2>&1"; done
$CLI -p 23701 cluster meet 127.0.0.1 23702 23722
$CLI -p 23701 cluster meet 127.0.0.1 23703 23723
$CLI -p 23701 cluster addslotsrange 0 8191
$CLI -p 23702 cluster addslotsrange 8192 16383
wait_until "[ \$($CLI -p 23703 cluster info | grep -c cluster_state:ok) = 1 ]"
ida=$($CLI -p 23701 cluster myid)
$CLI -p 23703 cluster replicate "$ida"
wait_until "$CLI -p 23703 info replication | grep -q master_link_status:up"
$CLI -p 23701 publish news hello
$CLI -p 23701 spublish bar shard-hello   # slot 5061: A's shard, goes to C
sleep 1
$CLI -p 23703 cluster failover
wait_until "$CLI -p 23703 role | head -1 | grep -q master"
sleep 1
# C is stopped while A takes its slots back (TAKEOVER: a new epoch, no vote) and then killed, so
# its nodes.conf still gives it the slots at the old epoch. Restarted while A is stopped (so only
# B can correct it), C claims them and B answers with UPDATE; C becomes A's replica.
idc=$($CLI -p 23703 cluster myid)
kill -STOP "${pid[3]}"
$CLI -p 23701 cluster failover takeover
wait_until "$CLI -p 23701 role | head -1 | grep -q master"
wait_until "$CLI -p 23702 cluster nodes | grep $ida | grep -q 'master.* 0-8191'"  # B knows
{ kill -KILL "${pid[3]}"; wait "${pid[3]}" || true; } 2>/dev/null  # reaped quietly
kill -STOP "${pid[1]}"
start_node 3
wait_until "$CLI -p 23703 role 2>/dev/null | head -1 | grep -q slave"
kill -CONT "${pid[1]}"
sleep 1
kill "${pid[3]}"  # node C: PFAIL, then FAIL
wait_until "$CLI -p 23702 cluster nodes | grep $idc | grep -q ',fail '"
sleep 1
ls "$OUT" | sed 's/^[0-9]*-//; s/-.*//' | sort | uniq -c
