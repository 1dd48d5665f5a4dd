#!/bin/bash
# Cluster benchmarks, redis-tp beside Debian's Redis 7.0.15 in the same run (127.0.0.1 only):
#  (a) throughput of one cluster-mode master owning every slot against three masters
#      (redis-benchmark, --cluster for three, SET and GET, 50 clients, pipelined), each server;
#  (b) resharding time: KEYS keys (DEBUG POPULATE) on a master owning every slot, moved with
#      `redis-cli --cluster reshard` of SLOTS slots to an empty master, and used_memory on the
#      source after the load (bytes per key);
#  (f) failover time: a 3-master + 3-replica cluster (redis-cli --cluster create
#      --cluster-replicas 1), a client writing one key of the first master's slots in a loop;
#      SIGKILL of that master, then the time from the kill to the first write its replica
#      accepts (before that it answers MOVED to the dead master) and to a surviving master
#      showing the replica as the slots' master with cluster_state ok. FROUNDS rounds per
#      server, each on a fresh cluster; median and range, ratio redis-tp / Redis.
# Every step is bounded by `timeout`; the servers are shut down at the end (and on Ctrl-C).
# The machine is shared: run it when no build runs, and run it twice to see the spread.
#
# usage: utils/bench-cluster.sh [-k KEYS] [-s SLOTS] [-n REQUESTS] [-r ROUNDS] [-f FROUNDS]
#                               [-t NODE_TIMEOUT_MS] [-p PARTS]
# PARTS: the letters of the parts to run (default abf); -t: cluster-node-timeout of every node
# (default 5000, Redis's default is 15000).
set -u
KEYS=1000000
SLOTS=16384
REQUESTS=200000
ROUNDS=1
FROUNDS=5
NODE_TIMEOUT=5000
PARTS=abf
PIPELINE=1000  # --cluster-pipeline: keys per GETKEYSINSLOT and MIGRATE (redis-cli's default: 10)
while getopts "k:s:n:r:f:t:p:" o; do
  case $o in
    k) KEYS=$OPTARG ;; s) SLOTS=$OPTARG ;; n) REQUESTS=$OPTARG ;; r) ROUNDS=$OPTARG ;;
    f) FROUNDS=$OPTARG ;; t) NODE_TIMEOUT=$OPTARG ;; p) PARTS=$OPTARG ;;
    *) echo "usage: $0 [-k KEYS] [-s SLOTS] [-n REQUESTS] [-r ROUNDS] [-f FROUNDS] [-t MS] [-p PARTS]"
       exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
OURS=$here/src/redis-server
REDIS=/usr/bin/redis-server
# The first of 80 ports (and their bus ports, +10000) that nothing listens on.
free_base() {
  local base p busy
  for base in $(seq 21000 100 25900); do
    busy=0
    for ((p = base; p < base + 80; p++)); do
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
trap cleanup EXIT
trap 'exit 1' INT TERM  # through the EXIT trap: the nodes are shut down

# start BINARY PORT: a cluster-mode node with an empty config in its own directory.
start() {
  rm -rf "${work:?}/$2" && mkdir -p "$work/$2"  # a fresh nodes.conf: rounds reuse the ports
  (cd "$work/$2" && "$1" --port "$2" --bind 127.0.0.1 --cluster-enabled yes \
    --cluster-node-timeout "$NODE_TIMEOUT" --save "" --appendonly no --enable-debug-command yes \
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

# port_of ADDR: the client port of a CLUSTER NODES address (ip:port@cport).
port_of() { local a=${1#*:}; echo "${a%%@*}"; }

# bench_failover BIN PORT: one round of (f) on nodes PORT..PORT+5; prints "write_s state_s" (the
# seconds from the kill to the first write the replica accepts, and to the survivor's view of
# it as the master with cluster_state ok), "n/a" for a step that did not happen in 60 s. Not
# called in a $(...) subshell: the nodes it starts must reach `started` for the cleanup.
bench_failover() {
  local bin=$1 port=$2 addrs=() ports=() i
  for ((i = 0; i < 6; i++)); do
    start "$bin" $((port + i)); addrs+=(127.0.0.1:$((port + i))); ports+=($((port + i)))
  done
  timeout 60 redis-cli --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes \
    >"$work/create.$port" 2>&1 || { echo "create failed: $(tail -c 300 "$work/create.$port")" >&2; }
  wait_ok "${ports[@]}"
  local key=failover:key slot nodes mid maddr mport="" rport="" sport=""
  slot=$(redis-cli -p "$port" cluster keyslot $key)
  # The master of the key's slot, its replica, and another master (the survivor asked), once
  # the first node's view shows the replica (it learns it from the replica's own headers).
  for _ in $(seq 300); do
    nodes=$(redis-cli -p "$port" cluster nodes)
    read -r mid maddr <<<"$(awk -v s="$slot" '$3 ~ /master/ {
        for (i = 9; i <= NF; i++) { n = split($i, r, "-"); if (n == 1) r[2] = r[1]
          if (s >= r[1] && s <= r[2]) print $1, $2 } }' <<<"$nodes")"
    mport=$(port_of "$maddr")
    rport=$(port_of "$(awk -v m="$mid" '$4 == m {print $2; exit}' <<<"$nodes")")
    sport=$(port_of "$(awk -v m="$mid" '$3 ~ /master/ && $1 != m {print $2; exit}' <<<"$nodes")")
    [ -n "$mid" ] && [ -n "$rport" ] && [ -n "$sport" ] &&
      redis-cli -p "$rport" info replication | grep -q master_link_status:up && break
    sleep 0.1
  done
  if [ -z "$mid" ] || [ -z "$rport" ] || [ -z "$sport" ]; then
    echo "port $port: no master of slot $slot with a replica: $nodes" >&2
    stop "${ports[@]}"; echo "n/a n/a"; return
  fi
  # The writer: ten writes on the master, the kill, then one write every 10 ms on the replica
  # (it answers MOVED to the dead master until it is elected).
  local n pid t0 tw="" ts=""
  for n in $(seq 10); do redis-cli -p "$mport" set $key "$n" >/dev/null; done
  pid=$(redis-cli -p "$mport" info server | awk -F: '/^process_id:/ {print $2 + 0}')
  t0=$EPOCHREALTIME
  kill -9 "$pid"
  for n in $(seq 6000); do
    if [ -z "$tw" ] && [ "$(timeout 2 redis-cli -p "$rport" set $key "$n" 2>/dev/null)" = OK ]; then
      tw=$EPOCHREALTIME
    fi
    if [ -z "$ts" ] && timeout 2 redis-cli -p "$sport" cluster info | grep -q cluster_state:ok &&
      timeout 2 redis-cli -p "$sport" cluster nodes |
      awk -v p="$rport" '$3 ~ /master/ && $2 ~ ":" p "@" && NF >= 9 {f = 1} END {exit !f}'; then
      ts=$EPOCHREALTIME
    fi
    [ -n "$tw" ] && [ -n "$ts" ] && break
    [ "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {print (b - a > 60)}')" = 1 ] && break
    sleep 0.01
  done
  stop "${ports[@]}"
  awk -v t0="$t0" -v tw="$tw" -v ts="$ts" 'BEGIN {
    printf "%s %s", (tw == "" ? "n/a" : sprintf("%.2f", tw - t0)),
      (ts == "" ? "n/a" : sprintf("%.2f", ts - t0)) }'
  echo
}

# stats FIGURE...: "median (min-max)" of the numbers given (n/a ignored).
stats() {
  printf "%s\n" "$@" | grep -v n/a | sort -g |
    awk '{v[NR] = $1} END {if (!NR) {printf "n/a"; exit}
      m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%.2f (%.2f-%.2f)", m, v[1], v[NR]}'
}

echo "bench-cluster: $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ $PARTS == *a* ]]; then
echo "(a) redis-benchmark --cluster -t set,get -n $REQUESTS -c 50 -P 16: mean of SET and GET rps"
for ((r = 1; r <= ROUNDS; r++)); do
  o1=$(bench_rps "$OURS" $BASE 1); o3=$(bench_rps "$OURS" $((BASE + 10)) 3)
  r1=$(bench_rps "$REDIS" $((BASE + 20)) 1); r3=$(bench_rps "$REDIS" $((BASE + 30)) 3)
  printf "  round %d  redis-tp: 1 master %s, 3 masters %s (x%s)   Redis: 1 master %s, 3 masters %s (x%s)\n" \
    "$r" "$o1" "$o3" "$(awk -v a="$o3" -v b="$o1" 'BEGIN {printf "%.2f", a / b}')" \
    "$r1" "$r3" "$(awk -v a="$r3" -v b="$r1" 'BEGIN {printf "%.2f", a / b}')"
done
fi
if [[ $PARTS == *b* ]]; then
echo "(b) DEBUG POPULATE $KEYS on a master with every slot, redis-cli --cluster reshard of $SLOTS slots to an empty master (--cluster-pipeline $PIPELINE)"
for ((r = 1; r <= ROUNDS; r++)); do
  read -r ot om omoved <<<"$(bench_reshard "$OURS" $((BASE + 40)))"
  read -r rt rm rmoved <<<"$(bench_reshard "$REDIS" $((BASE + 50)))"
  printf "  round %d  redis-tp: %s s, %s keys moved, %s B/key   Redis: %s s, %s keys moved, %s B/key   time ratio %s\n" \
    "$r" "$ot" "$omoved" "$om" "$rt" "$rmoved" "$rm" "$(awk -v a="$ot" -v b="$rt" 'BEGIN {printf "%.2f", a / b}')"
done
fi
if [[ $PARTS == *f* ]]; then
  echo "(f) failover: 3 masters + 3 replicas, cluster-node-timeout $NODE_TIMEOUT, SIGKILL of a master, seconds from the kill"
  ow=() os=() rw=() rs=()
  for ((r = 1; r <= FROUNDS; r++)); do
    bench_failover "$OURS" $((BASE + 60)) >"$work/failover"
    read -r a b <"$work/failover"; ow+=("$a"); os+=("$b")
    bench_failover "$REDIS" $((BASE + 70)) >"$work/failover"
    read -r c d <"$work/failover"; rw+=("$c"); rs+=("$d")
    printf "  round %d  redis-tp: first write %s, survivor ok %s   Redis: first write %s, survivor ok %s\n" \
      "$r" "$a" "$b" "$c" "$d"
  done
  printf "  median (range)  redis-tp: first write %s, survivor ok %s   Redis: first write %s, survivor ok %s\n" \
    "$(stats "${ow[@]}")" "$(stats "${os[@]}")" "$(stats "${rw[@]}")" "$(stats "${rs[@]}")"
  printf "  ratio of medians redis-tp / Redis: first write %s, survivor ok %s\n" \
    "$(awk -v a="$(stats "${ow[@]}" | cut -d' ' -f1)" -v b="$(stats "${rw[@]}" | cut -d' ' -f1)" 'BEGIN {printf "%.2f", a / b}')" \
    "$(awk -v a="$(stats "${os[@]}" | cut -d' ' -f1)" -v b="$(stats "${rs[@]}" | cut -d' ' -f1)" 'BEGIN {printf "%.2f", a / b}')"
fi
