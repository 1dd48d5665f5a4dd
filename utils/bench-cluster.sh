#!/bin/bash
# Cluster benchmarks, redis-tp beside Debian's Redis 7.0.15 in the same run (127.0.0.1 only):
#  (a) throughput of one cluster-mode master owning every slot against three masters
#      (redis-benchmark, --cluster for three, SET and GET, 50 clients, pipelined), each server;
#  (b) resharding time: KEYS keys (DEBUG POPULATE) on a master owning every slot, moved with
#      `redis-cli --cluster reshard` of SLOTS slots to an empty master, and used_memory on the
#      source after the load (bytes per key).
# Every step is bounded by `timeout`; the servers are shut down at the end (and on Ctrl-C).
# The machine is shared: run it when no build runs, and run it twice to see the spread.
#
# usage: utils/bench-cluster.sh [-k KEYS] [-s SLOTS] [-n REQUESTS] [-r ROUNDS]
set -u
KEYS=1000000
SLOTS=16384
REQUESTS=200000
ROUNDS=1
PIPELINE=1000  # --cluster-pipeline: keys per GETKEYSINSLOT and MIGRATE (redis-cli's default: 10)
while getopts "k:s:n:r:" o; do
  case $o in
    k) KEYS=$OPTARG ;; s) SLOTS=$OPTARG ;; n) REQUESTS=$OPTARG ;; r) ROUNDS=$OPTARG ;;
    *) echo "usage: $0 [-k KEYS] [-s SLOTS] [-n REQUESTS] [-r ROUNDS]"; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
OURS=$here/src/redis-server
REDIS=/usr/bin/redis-server
# The first of 60 ports (and their bus ports, +10000) that nothing listens on.
free_base() {
  local base p busy
  for base in $(seq 21000 100 25900); do
    busy=0
    for ((p = base; p < base + 60; p++)); do
      if ss -ltnH "( sport = :$p or sport = :$((p + 10000)) )" | grep -q .; then busy=1; break; fi
    done
    [ $busy = 0 ] && { echo "$base"; return; }
  done
  echo "no free range of ports" >&2; exit 1
}
BASE=${BENCH_BASE_PORT:-$(free_base)}
work=$(mktemp -d /tmp/bench-cluster.XXXXXX)
started=()

cleanup() {
  for p in "${started[@]}"; do redis-cli -p "$p" shutdown nosave >/dev/null 2>&1; done
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

# start BINARY PORT: a cluster-mode node with an empty config in its own directory.
start() {
  rm -rf "${work:?}/$2" && mkdir -p "$work/$2"  # a fresh nodes.conf: rounds reuse the ports
  (cd "$work/$2" && "$1" --port "$2" --bind 127.0.0.1 --cluster-enabled yes \
    --cluster-node-timeout 5000 --save "" --appendonly no --enable-debug-command yes \
    --daemonize yes --logfile log >/dev/null)
  started+=("$2")
  for _ in $(seq 50); do redis-cli -p "$2" ping >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "node on port $2 did not start" >&2; exit 1
}

stop() { for p in "$@"; do redis-cli -p "$p" shutdown nosave >/dev/null 2>&1; done; }

# wait_ok PORT...: cluster_state ok on each (at most 30 s).
wait_ok() {
  for p in "$@"; do
    for _ in $(seq 300); do
      redis-cli -p "$p" cluster info | grep -q cluster_state:ok && continue 2
      sleep 0.1
    done
    echo "port $p: cluster_state never ok" >&2; exit 1
  done
}

# bench_rps BIN PORT N: the mean of SET and GET requests per second of redis-benchmark --cluster
# against N masters starting at PORT.
bench_rps() {
  local bin=$1 port=$2 n=$3 addrs=() i
  for ((i = 0; i < n; i++)); do start "$bin" $((port + i)); addrs+=(127.0.0.1:$((port + i))); done
  if [ "$n" = 1 ]; then
    redis-cli -p "$port" cluster addslotsrange 0 16383 >/dev/null
  else
    timeout 60 redis-cli --cluster create "${addrs[@]}" --cluster-yes >/dev/null 2>&1
  fi
  wait_ok $(seq "$port" $((port + n - 1)))
  # redis-benchmark --cluster refuses a cluster of one node ("Invalid cluster"); that node owns
  # every slot, so the plain mode sends it the same requests without a redirection.
  local mode=--cluster
  [ "$n" = 1 ] && mode=
  timeout 300 redis-benchmark $mode -h 127.0.0.1 -p "$port" -t set,get -n "$REQUESTS" \
    -c 50 -P 16 -r 100000 -q 2>/dev/null | tr '\r' '\n' |
    awk '/requests per second/ {for (i = 1; i <= NF; i++) if ($i == "requests") {s += $(i-1); c++}}
         END {if (c) printf "%.0f", s / c; else printf "n/a"}'
  stop $(seq "$port" $((port + n - 1)))
}

# bench_reshard BIN PORT: prints "seconds bytes_per_key".
bench_reshard() {
  local bin=$1 a=$2 b=$(($2 + 1))
  start "$bin" $a; start "$bin" $b
  redis-cli -p $a cluster addslotsrange 0 16383 >/dev/null
  redis-cli -p $a cluster meet 127.0.0.1 $b >/dev/null
  # Both know each other by their ids (no handshake left), or redis-cli refuses the target.
  local bid
  bid=$(redis-cli -p $b cluster myid)
  for _ in $(seq 200); do
    redis-cli -p $a cluster nodes | grep "^$bid " | grep -qv handshake &&
      redis-cli -p $b cluster info | grep -q 'cluster_known_nodes:2' && break
    sleep 0.1
  done
  wait_ok $a $b
  local before after
  before=$(redis-cli -p $a info memory | awk -F: '/^used_memory:/ {print $2+0}')
  timeout 300 redis-cli -p $a debug populate "$KEYS" >/dev/null
  after=$(redis-cli -p $a info memory | awk -F: '/^used_memory:/ {print $2+0}')
  local from to t0 t1
  from=$(redis-cli -p $a cluster myid); to=$(redis-cli -p $b cluster myid)
  t0=$(date +%s.%N)
  timeout 1200 redis-cli --cluster reshard 127.0.0.1:$a --cluster-from "$from" --cluster-to "$to" \
    --cluster-slots "$SLOTS" --cluster-yes --cluster-pipeline $PIPELINE >"$work/reshard.$a" 2>&1
  local rc=$?
  t1=$(date +%s.%N)
  local moved
  moved=$(redis-cli -p $b dbsize)
  stop $a $b
  if [ $rc != 0 ]; then echo "reshard failed (status $rc): $(tail -c 300 "$work/reshard.$a")" >&2; fi
  awk -v t0="$t0" -v t1="$t1" -v b="$before" -v a="$after" -v k="$KEYS" -v m="$moved" \
    'BEGIN {printf "%.1f %.1f %d", t1 - t0, (a - b) / k, m}'
}

echo "bench-cluster: $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "(a) redis-benchmark --cluster -t set,get -n $REQUESTS -c 50 -P 16: mean of SET and GET rps"
for ((r = 1; r <= ROUNDS; r++)); do
  o1=$(bench_rps "$OURS" $BASE 1); o3=$(bench_rps "$OURS" $((BASE + 10)) 3)
  r1=$(bench_rps "$REDIS" $((BASE + 20)) 1); r3=$(bench_rps "$REDIS" $((BASE + 30)) 3)
  printf "  round %d  redis-tp: 1 master %s, 3 masters %s (x%s)   Redis: 1 master %s, 3 masters %s (x%s)\n" \
    "$r" "$o1" "$o3" "$(awk -v a="$o3" -v b="$o1" 'BEGIN {printf "%.2f", a / b}')" \
    "$r1" "$r3" "$(awk -v a="$r3" -v b="$r1" 'BEGIN {printf "%.2f", a / b}')"
done
echo "(b) DEBUG POPULATE $KEYS on a master with every slot, redis-cli --cluster reshard of $SLOTS slots to an empty master (--cluster-pipeline $PIPELINE)"
for ((r = 1; r <= ROUNDS; r++)); do
  read -r ot om omoved <<<"$(bench_reshard "$OURS" $((BASE + 40)))"
  read -r rt rm rmoved <<<"$(bench_reshard "$REDIS" $((BASE + 50)))"
  printf "  round %d  redis-tp: %s s, %s keys moved, %s B/key   Redis: %s s, %s keys moved, %s B/key   time ratio %s\n" \
    "$r" "$ot" "$omoved" "$om" "$rt" "$rmoved" "$rm" "$(awk -v a="$ot" -v b="$rt" 'BEGIN {printf "%.2f", a / b}')"
done
