#!/usr/bin/env bash
# The whole side-by-side table against Debian's Redis 7.0 in one run: throughput and server CPU
# per request on every redis-benchmark row, memory per element of strings and of the 8
# aggregate shapes, existence-event fan-out, and tail latency idle and during BGSAVE and AOF
# rewrite.
#
# Usage: utils/bench-all.sh [--ours PATH] [--redis PATH] [--quick]
#   --ours PATH     server under test (default: src/redis-server in this repository)
#   --redis PATH    reference server (default: /usr/bin/redis-server)
#   --quick         every part at its smallest useful size (minutes instead of about half an
#                   hour): for checking that the parts run, not for figures
# Environment: BENCH_SERVER_CPUS / BENCH_CLIENT_CPUS pin the servers and the load generators
# apart, as each part documents.
#
# Method: the parts run one after the other, each starting its own pair of servers, so one part's
# data or memory cannot reach another's figures:
#  1. utils/bench-vs-redis.sh: throughput and CPU microseconds per request, SET GET INCR MSET
#     LPUSH RPUSH LPOP RPOP SADD SPOP HSET ZADD ZPOPMIN LRANGE_100/600 at -P 1 and -P 16,
#     SET/GET of 1 KB values, SET EX and GET of keys with a TTL, and bytes per small string key;
#  2. utils/bench-memory.py: bytes per element of the small hash, intset, sorted set and list
#     and of one big hash, set, intset, sorted set and list;
#  3. utils/bench-fanout.py: the server's CPU per change and per receiver, and the last
#     receiver's latency, with 100 and 1,000 watchers of one key against as many Pub/Sub
#     subscribers on Redis;
#  4. utils/bench-tail.sh: p50 / p99 / p99.9 of GET and SET with 1M keys, idle, during BGSAVE
#     and during BGREWRITEAOF;
#  5. utils/bench-io-threads.sh: requests/s, CPU per request and the main thread's share of it
#     with io-threads 1, 2, and 2 with threaded reads, each server with the same setting.
# Each part's method and options are in its own header.
#
# The report is the parts' markdown reports in order on stdout (also saved as
# utils/bench-results/all-<time>.md); progress goes to stderr. Exit status: 0 when every part
# ran, 1 when one failed (the others still run), 2 on bad usage.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
OURS=$ROOT/src/redis-server
REDIS=/usr/bin/redis-server
QUICK=0

usage() {
  sed -n "7,11s/^# \{0,1\}//p" "${BASH_SOURCE[0]}" >&"${2:-2}"
  exit "${1:-2}"
}
while (($# > 0)); do
  case $1 in
    --ours) [[ -n ${2:-} ]] || usage && OURS=$2 && shift 2 ;;
    --redis) [[ -n ${2:-} ]] || usage && REDIS=$2 && shift 2 ;;
    --quick) QUICK=1 && shift ;;
    -h | --help) usage 0 1 ;;
    *) usage ;;
  esac
done

mkdir -p "$ROOT/utils/bench-results"
OUT=$ROOT/utils/bench-results/all-$(date -u +%Y%m%dT%H%M%SZ).md
pair=(--ours "$OURS" --redis "$REDIS")
vs=("${pair[@]}") memory=("${pair[@]}") fanout=("${pair[@]}") tail=("${pair[@]}")
iot=("${pair[@]}")
if ((QUICK)); then
  vs+=(--quick --rounds 1)
  memory+=(--small-keys 10000 --big 100000)
  fanout+=(--quick)
  tail+=(--requests 50000 --rounds 1)
  iot+=(--requests 100000 --rounds 1)
fi

failed=0
# Runs one part, its report to stdout and the saved file, its progress to stderr.
part() {
  local title=$1 start
  shift
  start=$(date +%s)
  printf '%s\n' "bench-all: $title: $*" >&2
  if ! "$@" | tee -a "$OUT"; then
    printf '%s\n' "bench-all: $title failed" >&2
    printf '\n**%s did not complete.**\n' "$title" | tee -a "$OUT"
    failed=1
  fi
  printf '\n' | tee -a "$OUT"
  printf '%s\n' "bench-all: $title took $(($(date +%s) - start)) s" >&2
}

{
  echo "# redis-tp against Redis 7.0: the whole table"
  echo
  echo "\`utils/bench-all.sh$( ((QUICK)) && echo ' --quick')\`, $(date -u '+%Y-%m-%d %H:%M UTC'), ours:"
  echo "$("$OURS" --version 2>/dev/null | head -1); Redis: $("$REDIS" --version 2>/dev/null | head -1)"
  echo
} | tee "$OUT"
part "throughput, CPU per request, memory of strings" "$ROOT/utils/bench-vs-redis.sh" "${vs[@]}"
part "memory per element of the aggregates" "$ROOT/utils/bench-memory.py" "${memory[@]}"
part "fan-out" "$ROOT/utils/bench-fanout.py" "${fanout[@]}"
part "tail latency" "$ROOT/utils/bench-tail.sh" "${tail[@]}"
part "io-threads" "$ROOT/utils/bench-io-threads.sh" "${iot[@]}"
printf '%s\n' "bench-all: report saved as $OUT" >&2
exit "$failed"
