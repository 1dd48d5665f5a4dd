#!/usr/bin/env bash
# Replication benchmarks, the master side, side by side with Debian's Redis 7.0: the master is
# redis-tp on one side and Redis on the other; the replicas are Debian's Redis 7.0 on both, so
# the difference is the master's.
#
# Usage: utils/bench-replication.sh [--ours PATH] [--redis PATH] [--keys N] [--requests N]
#                                   [--quick]
#   --ours PATH     master under test (default: src/redis-server in this repository)
#   --redis PATH    reference server, also every replica (default: /usr/bin/redis-server)
#   --keys N        keys of the full sync (default 1000000, quick 100000)
#   --requests N    SET requests per throughput run (default 1000000, quick 200000)
#   --quick         the small sizes above
#
# Method. Every server is started by this script on a free loopback port in a scratch
# directory (utils/bench/servers.sh), the two sides one after the other.
#  1. Full sync, disk (repl-diskless-sync no) and diskless (yes, delay 0): the master holds
#     --keys N string keys (written with redis-cli --pipe); a fresh replica is told REPLICAOF; the time is from that command until
#     the replica reports master_link_status:up with DBSIZE N, polled every 20 ms. Meanwhile
#     the master's VmRSS plus its forked child's (the peak of the sum, /proc) is sampled: the
#     master's memory for the sync.
#  2. Throughput: redis-benchmark -t set -c 50 -P 16 -r 100000 -n --requests against the
#     master with 0, 1 and 2 replicas online (each checked online before the run).
#  3. Lag: during the 1-replica run the master's master_repl_offset minus the replica's
#     acknowledged offset (INFO slave0 offset=) is sampled every 100 ms; the peak and the mean
#     in bytes are reported, and the time the replica needs after the load to catch up.
# The report is markdown on stdout; progress goes to stderr.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-replication
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"

OURS="$ROOT/src/redis-server"
REDIS=/usr/bin/redis-server
KEYS=1000000
REQUESTS=1000000
while (($#)); do
  case $1 in
    --ours) OURS=$2; shift 2 ;;
    --redis) REDIS=$2; shift 2 ;;
    --keys) KEYS=$2; shift 2 ;;
    --requests) REQUESTS=$2; shift 2 ;;
    --quick) KEYS=100000; REQUESTS=200000; shift ;;
    *) echo "usage: $0 [--ours PATH] [--redis PATH] [--keys N] [--requests N] [--quick]" >&2
       exit 2 ;;
  esac
done
trap 'bench_stop_all' EXIT

# Resident memory (kB) of a process and its children (a forked child's pages count too).
rss_tree_kb() {
  local pid=$1 total=0 kb child
  kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
  total=$((total + ${kb:-0}))
  for child in $(cat "/proc/$pid/task/$pid/children" 2>/dev/null); do
    kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$child/status" 2>/dev/null || echo 0)
    total=$((total + ${kb:-0}))
  done
  echo "$total"
}

now_ms() { date +%s%3N; }

# N keys key:0 .. key:N-1 (values of 10 bytes) into side S, through redis-cli --pipe (DEBUG
# POPULATE needs enable-debug-command, which the servers here are started without).
populate() {
  awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++) { k = "key:" i;
    printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$10\r\nvalue12345\r\n", length(k), k } }' |
    timeout 600 redis-cli -h 127.0.0.1 -p "${BENCH_PORT[$1]}" --pipe >/dev/null
  [[ $(bench_cli "$1" dbsize) == "$2" ]] || die "populate of $1 failed"
}

# Waits (up to 600 s) until replica side R is online with N keys.
wait_synced() {
  local r=$1 n=$2 i
  for ((i = 0; i < 30000; i++)); do
    if [[ $(bench_info_field "$r" replication master_link_status) == up &&
      $(bench_cli "$r" dbsize) == "$n" ]]; then
      return 0
    fi
    sleep 0.02
  done
  die "replica $r never synced"
}

# Waits (up to 60 s) until master side M reports K online replicas.
wait_online() {
  local m=$1 k=$2 i
  for ((i = 0; i < 600; i++)); do
    [[ $(bench_cli "$m" info replication | grep -c 'state=online') == "$k" ]] && return 0
    sleep 0.1
  done
  die "master $m: $k replicas never online"
}

# Full sync of KEYS keys from master side M (binary BIN) in mode MODE (yes|no): "ms peak_mb".
full_sync() {
  local label=$1 bin=$2 mode=$3 m r start end peak kb
  m="$label-m-$mode"
  r="$label-r-$mode"
  bench_start "$m" "$bin" || die "cannot start $m"
  bench_cli "$m" config set repl-diskless-sync "$mode" >/dev/null
  bench_cli "$m" config set repl-diskless-sync-delay 0 >/dev/null
  populate "$m" "$KEYS"
  bench_start "$r" "$REDIS" || die "cannot start $r"
  peak=0
  start=$(now_ms)
  bench_cli "$r" replicaof 127.0.0.1 "${BENCH_PORT[$m]}" >/dev/null
  while true; do
    kb=$(rss_tree_kb "${BENCH_PID[$m]}")
    ((kb > peak)) && peak=$kb
    if [[ $(bench_info_field "$r" replication master_link_status) == up &&
      $(bench_cli "$r" dbsize) == "$KEYS" ]]; then
      break
    fi
    (($(now_ms) - start < 600000)) || die "sync of $m never ended"
    sleep 0.02
  done
  end=$(now_ms)
  bench_stop "$r"
  bench_stop "$m"
  echo "$((end - start)) $((peak / 1024))"
}

# SET throughput (requests/s) against master side M.
set_rps() {
  redis-benchmark -h 127.0.0.1 -p "${BENCH_PORT[$1]}" -t set -c 50 -P 16 -r 100000 \
    -n "$REQUESTS" -q 2>/dev/null | tr '\r' '\n' | awk '/^SET:.*requests per second/ {print $2; exit}'
}

# Throughput with 0/1/2 replicas and the lag with 1: "rps0 rps1 rps2 lagpeak lagmean catchup_ms".
throughput() {
  local label=$1 bin=$2 m r1 r2 rps0 rps1 rps2 bpid samples=0 sum=0 peak=0 off ack lag start
  m="$label-tm"
  r1="$label-tr1"
  r2="$label-tr2"
  bench_start "$m" "$bin" || die "cannot start $m"
  rps0=$(set_rps "$m")
  bench_start "$r1" "$REDIS" || die "cannot start $r1"
  bench_cli "$r1" replicaof 127.0.0.1 "${BENCH_PORT[$m]}" >/dev/null
  wait_online "$m" 1
  set_rps "$m" >"${BENCH_DIR[$m]}/rps1" &
  bpid=$!
  while kill -0 "$bpid" 2>/dev/null; do
    off=$(bench_info_field "$m" replication master_repl_offset)
    ack=$(bench_cli "$m" info replication | sed -n 's/^slave0:.*offset=\([0-9]*\).*/\1/p')
    if [[ -n $off && -n $ack ]]; then
      lag=$((off - ack))
      ((lag > peak)) && peak=$lag
      sum=$((sum + lag))
      samples=$((samples + 1))
    fi
    sleep 0.1
  done
  wait "$bpid" || true
  rps1=$(cat "${BENCH_DIR[$m]}/rps1")
  start=$(now_ms)
  for ((i = 0; i < 6000; i++)); do
    off=$(bench_info_field "$m" replication master_repl_offset)
    [[ $(bench_info_field "$r1" replication master_repl_offset) == "$off" ]] && break
    sleep 0.01
  done
  local catchup=$(($(now_ms) - start))
  bench_start "$r2" "$REDIS" || die "cannot start $r2"
  bench_cli "$r2" replicaof 127.0.0.1 "${BENCH_PORT[$m]}" >/dev/null
  wait_online "$m" 2
  rps2=$(set_rps "$m")
  bench_stop "$r2"
  bench_stop "$r1"
  bench_stop "$m"
  echo "$rps0 $rps1 $rps2 $peak $((samples > 0 ? sum / samples : 0)) $catchup"
}

declare -A RES
for side in ours redis; do
  bin=$OURS
  [[ $side == redis ]] && bin=$REDIS
  for mode in no yes; do
    bench_log "full sync ($side, diskless $mode, $KEYS keys)..."
    RES[$side-sync-$mode]=$(full_sync "$side" "$bin" "$mode")
  done
  bench_log "throughput and lag ($side)..."
  RES[$side-tp]=$(throughput "$side" "$bin")
done

read -r o_dms o_dmb <<<"${RES[ours-sync-no]}"
read -r r_dms r_dmb <<<"${RES[redis-sync-no]}"
read -r o_sms o_smb <<<"${RES[ours-sync-yes]}"
read -r r_sms r_smb <<<"${RES[redis-sync-yes]}"
read -r o0 o1 o2 olp olm oc <<<"${RES[ours-tp]}"
read -r r0 r1 r2 rlp rlm rc <<<"${RES[redis-tp]}"
ratio_of() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }

echo "# Replication, master side: redis-tp vs Redis 7.0 (replicas: Redis 7.0)"
echo
echo "keys=$KEYS requests=$REQUESTS, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "| figure | redis-tp | Redis 7.0 | ratio |"
echo "|---|---|---|---|"
echo "| full sync, disk: time (ms) | $o_dms | $r_dms | $(ratio_of "$r_dms" "$o_dms") |"
echo "| full sync, disk: master peak RSS incl. child (MB) | $o_dmb | $r_dmb | $(ratio_of "$r_dmb" "$o_dmb") |"
echo "| full sync, diskless: time (ms) | $o_sms | $r_sms | $(ratio_of "$r_sms" "$o_sms") |"
echo "| full sync, diskless: master peak RSS incl. child (MB) | $o_smb | $r_smb | $(ratio_of "$r_smb" "$o_smb") |"
echo "| SET -P 16, 0 replicas (req/s) | $o0 | $r0 | $(ratio_of "$o0" "$r0") |"
echo "| SET -P 16, 1 replica (req/s) | $o1 | $r1 | $(ratio_of "$o1" "$r1") |"
echo "| SET -P 16, 2 replicas (req/s) | $o2 | $r2 | $(ratio_of "$o2" "$r2") |"
echo "| lag under load, peak (bytes) | $olp | $rlp | |"
echo "| lag under load, mean (bytes) | $olm | $rlm | |"
echo "| catch-up after load (ms) | $oc | $rc | |"
echo
echo "Time and memory ratios are Redis/redis-tp (above 1: redis-tp better); throughput"
echo "ratios redis-tp/Redis. Lag samples read INFO every 100 ms; the replica's ACK is sent"
echo "once a second, so the lag includes up to a second of unacknowledged stream."
