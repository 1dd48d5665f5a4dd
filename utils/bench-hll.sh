#!/usr/bin/env bash
# HyperLogLog benchmarks, side by side with Debian's Redis 7.0.
#
# Usage: utils/bench-hll.sh [--ours PATH] [--redis PATH] [--quick] [--rounds N] [--requests N]
#                           [--no-memory]
#   --ours PATH     server under test (default: src/redis-server in this repository)
#   --redis PATH    reference server (default: /usr/bin/redis-server)
#   --quick         a shorter run (fewer requests and rounds) to check that all works
#   --rounds N      runs per side and test; the median is reported (default 3, quick 1)
#   --requests N    requests per -P 1 run; -P 16 runs carry 10 times more (default 200000)
#   --no-memory     only the throughput tests
#
# Method. Both servers run at once on free loopback ports (utils/bench/servers.sh: no config
# file, no persistence, so hll-sparse-max-bytes is the default 3000).
#  1. Throughput with redis-benchmark (-c 50), at pipeline depths 1 and 16:
#     - PFADD dense: one key, elements el:<random in 0..10^8>; the key is filled beforehand
#       with 20,000 elements so it is dense, and nearly every request changes a register
#       only rarely (the common case of a busy counter);
#     - PFADD sparse: keys s:<random in 0..10^5>, one element each: keys stay sparse;
#     - PFCOUNT cached: the dense key, whose cache stays valid (nothing changes it);
#     - PFCOUNT of two dense keys: the union computed on every call.
#     Every run starts from the same state (keys deleted and refilled with redis-cli --pipe
#     before the CPU sample). Runs alternate between the servers (ours, redis, ...) and each
#     side's median over the rounds is compared; CPU microseconds per request come from INFO
#     cpu sampled around each run.
#  2. Memory per HLL: FLUSHALL, then 10,000 sparse HLLs of 10 elements each, and separately
#     1,000 dense HLLs (PFADD of 3 elements, then PFDEBUG TODENSE), loaded with redis-cli
#     --pipe; the growth of used_memory divided by the number of keys.
#
# The report is markdown on stdout, also saved as utils/bench-results/hll-<time>.md; progress
# goes to stderr. Goals (issue 11): throughput >= 1.0x Redis, memory per HLL <= Redis. Missing
# a goal is reported, not an error. Exit status: 0 when every step ran, 1 when a server died or
# a step failed, 2 on bad usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-hll
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"

readonly CLIENTS=50
readonly DENSE_FILL=20000
readonly SPARSE_KEYS=10000
readonly DENSE_KEYS=1000

# One test per line: label | pipeline depth | -r range | state before each run | command.
# States: "dense" (keys hll and hll2 deleted and refilled with DENSE_FILL elements each),
# "flush" (FLUSHALL).
readonly TESTS=(
  "PFADD dense -P 1|1|100000000|dense|PFADD hll el:__rand_int__"
  "PFADD dense -P 16|16|100000000|dense|PFADD hll el:__rand_int__"
  "PFADD sparse -P 1|1|100000|flush|PFADD s:__rand_int__ x"
  "PFADD sparse -P 16|16|100000|flush|PFADD s:__rand_int__ x"
  "PFCOUNT cached -P 1|1|1|dense|PFCOUNT hll"
  "PFCOUNT cached -P 16|16|1|dense|PFCOUNT hll"
  "PFCOUNT 2 keys -P 1|1|1|dense|PFCOUNT hll hll2"
  "PFCOUNT 2 keys -P 16|16|1|dense|PFCOUNT hll hll2"
)

usage() { bench_usage 4 11 "${1:-2}"; }

OURS="$ROOT/src/redis-server"
REDIS=/usr/bin/redis-server
ROUNDS=""
REQUESTS=""
QUICK=0
MEMORY=1
while (($#)); do
  case $1 in
    --ours) need_value "$1" "${2:-}" '.'; OURS=$2; shift 2 ;;
    --redis) need_value "$1" "${2:-}" '.'; REDIS=$2; shift 2 ;;
    --rounds) need_value "$1" "${2:-}" '^[1-9][0-9]*$'; ROUNDS=$2; shift 2 ;;
    --requests) need_value "$1" "${2:-}" '^[1-9][0-9]*$'; REQUESTS=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --no-memory) MEMORY=0; shift ;;
    -h | --help) usage 0 ;;
    *) bench_log "bench-hll: unknown option '$1'"; usage ;;
  esac
done
if ((QUICK)); then
  ROUNDS=${ROUNDS:-1}
  REQUESTS=${REQUESTS:-30000}
fi
ROUNDS=${ROUNDS:-3}
REQUESTS=${REQUESTS:-200000}
for bin in "$OURS" "$REDIS"; do
  [[ -x $bin ]] || die "'$bin' is not an executable"
done
command -v redis-benchmark >/dev/null || die "redis-benchmark is not installed"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-hll.XXXXXX")
cleanup() {
  bench_stop_all
  rm -rf -- "$WORK"
}
trap cleanup EXIT

bench_start ours "$OURS" || die "could not start '$OURS'"
bench_start redis "$REDIS" || die "could not start '$REDIS'"
bench_probe_cpu_source ours
bench_probe_cpu_source redis

# Sends the RESP commands on stdin to SIDE with redis-cli --pipe and checks that all of the
# expected number of replies came back without error.
pipe_to() {
  local side=$1 count=$2 out
  out=$(timeout 300 redis-cli -h 127.0.0.1 -p "${BENCH_PORT[$side]}" --pipe 2>&1) ||
    die "redis-cli --pipe to '$side' failed: $out"
  [[ $out == *"errors: 0, replies: $count"* ]] ||
    die "loading '$side' did not get $count clean replies: $out"
}

# RESP for: PFADD key el:0 .. el:<n-1>, 100 elements per command. Prints the command count on
# stderr's companion file $WORK/count.
pfadd_commands() {
  awk -v key="$1" -v n="$2" -v first="${3:-0}" 'BEGIN {
      for (i = 0; i < n; i += 100) {
        m = (n - i < 100) ? n - i : 100
        printf "*%d\r\n$5\r\nPFADD\r\n$%d\r\n%s\r\n", m + 2, length(key), key
        for (j = 0; j < m; j++) { e = "el:" (first + i + j); printf "$%d\r\n%s\r\n", length(e), e }
      }
    }'
}

# Puts SIDE in the state a test needs.
prepare() {
  local side=$1 state=$2
  [[ $(bench_cli "$side" flushall) == OK ]] || die "FLUSHALL on '$side' failed"
  if [[ $state == dense ]]; then
    { pfadd_commands hll "$DENSE_FILL"; pfadd_commands hll2 "$DENSE_FILL" 5000; } |
      pipe_to "$side" $((2 * DENSE_FILL / 100))
    [[ $(bench_cli "$side" pfdebug encoding hll) == dense ]] || die "hll is not dense on '$side'"
    bench_cli "$side" pfcount hll >/dev/null
  fi
}

# One redis-benchmark run; sets RUN_RPS and RUN_US (CPU us per request).
run_one() {
  local side=$1 pipeline=$2 range=$3 cmd=$4 requests cpu0 cpu1 out rc=0
  requests=$REQUESTS
  ((pipeline > 1)) && requests=$((REQUESTS * 10))
  cpu0=$(bench_cpu_seconds "$side")
  # shellcheck disable=SC2086
  out=$(timeout $((60 + requests / 2000)) redis-benchmark -h 127.0.0.1 \
    -p "${BENCH_PORT[$side]}" -c "$CLIENTS" -P "$pipeline" -r "$range" -n "$requests" \
    --csv $cmd 2>"$WORK/benchmark.err") || rc=$?
  require_alive "$side" "redis-benchmark $cmd"
  cpu1=$(bench_cpu_seconds "$side")
  RUN_RPS=$(awk -F, '{ gsub(/"/, "") } $1 != "test" && $2 + 0 > 0 { print $2; exit }' <<<"$out")
  if ((rc != 0)) || [[ -z $RUN_RPS ]]; then
    cat "$WORK/benchmark.err" >&2
    die "redis-benchmark '$cmd' against '$side' failed (exit $rc): ${out:-no output}"
  fi
  RUN_US=""
  if [[ -n $cpu0 && -n $cpu1 ]]; then
    RUN_US=$(awk -v a="$cpu0" -v b="$cpu1" -v n="$requests" \
      'BEGIN { printf "%.3f", (b - a) * 1e6 / n }')
  fi
}

declare -A RPS=() US=()
for idx in "${!TESTS[@]}"; do
  IFS='|' read -r label pipeline range state cmd <<<"${TESTS[idx]}"
  for ((round = 0; round < ROUNDS; round++)); do
    for side in ours redis; do
      bench_log "$label: $side, round $((round + 1))/$ROUNDS"
      prepare "$side" "$state"
      run_one "$side" "$pipeline" "$range" "$cmd"
      RPS[$idx,$side]="${RPS[$idx,$side]:-} $RUN_RPS"
      US[$idx,$side]="${US[$idx,$side]:-} $RUN_US"
    done
  done
done

# Memory: used_memory growth per key for KIND (sparse or dense) on SIDE; prints bytes per key.
memory_per_key() {
  local side=$1 kind=$2 before after keys
  [[ $(bench_cli "$side" flushall) == OK ]] || die "FLUSHALL on '$side' failed"
  sleep 0.3
  before=$(bench_info_field "$side" memory used_memory)
  if [[ $kind == sparse ]]; then
    keys=$SPARSE_KEYS
    awk -v n="$keys" 'BEGIN {
        for (i = 0; i < n; i++) {
          k = "s:" i
          printf "*12\r\n$5\r\nPFADD\r\n$%d\r\n%s\r\n", length(k), k
          for (j = 0; j < 10; j++) { e = "m:" i ":" j; printf "$%d\r\n%s\r\n", length(e), e }
        }
      }' | pipe_to "$side" "$keys"
  else
    keys=$DENSE_KEYS
    awk -v n="$keys" 'BEGIN {
        for (i = 0; i < n; i++) {
          k = "d:" i
          printf "*5\r\n$5\r\nPFADD\r\n$%d\r\n%s\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", length(k), k
          printf "*3\r\n$7\r\nPFDEBUG\r\n$7\r\nTODENSE\r\n$%d\r\n%s\r\n", length(k), k
        }
      }' | pipe_to "$side" $((2 * keys))
  fi
  after=$(bench_info_field "$side" memory used_memory)
  awk -v a="$before" -v b="$after" -v n="$keys" 'BEGIN { printf "%.1f", (b - a) / n }'
}

declare -A MEM=()
if ((MEMORY)); then
  for kind in sparse dense; do
    for side in ours redis; do
      bench_log "memory: $kind HLLs on $side"
      MEM[$kind,$side]=$(memory_per_key "$side" "$kind")
    done
  done
fi

mkdir -p "$ROOT/utils/bench-results"
REPORT="$ROOT/utils/bench-results/hll-$(date -u +%Y%m%dT%H%M%SZ).md"
{
  echo "# HyperLogLog: redis-tp vs Redis 7.0 ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "redis-benchmark -c $CLIENTS, $REQUESTS requests per -P 1 run (x10 at -P 16)," \
    "median of $ROUNDS rounds; CPU us per request from INFO cpu."
  echo
  echo "| test | ours req/s | redis req/s | ratio | ours CPU us/req | redis CPU us/req |"
  echo "|---|---:|---:|---:|---:|---:|"
  for idx in "${!TESTS[@]}"; do
    IFS='|' read -r label _ <<<"${TESTS[idx]}"
    # shellcheck disable=SC2086
    o=$(median ${RPS[$idx,ours]}) r=$(median ${RPS[$idx,redis]})
    # shellcheck disable=SC2086
    ou=$(median ${US[$idx,ours]}) ru=$(median ${US[$idx,redis]})
    echo "| $label | $(fmt %.0f "$o") | $(fmt %.0f "$r") | $(ratio "$o" "$r") |" \
      "$(fmt %.3f "$ou") | $(fmt %.3f "$ru") |"
  done
  if ((MEMORY)); then
    echo
    echo "| memory per HLL (used_memory growth / keys) | ours bytes | redis bytes | ratio |"
    echo "|---|---:|---:|---:|"
    echo "| sparse, 10 elements ($SPARSE_KEYS keys) | ${MEM[sparse,ours]} |" \
      "${MEM[sparse,redis]} | $(ratio "${MEM[sparse,ours]}" "${MEM[sparse,redis]}") |"
    echo "| dense ($DENSE_KEYS keys) | ${MEM[dense,ours]} | ${MEM[dense,redis]} |" \
      "$(ratio "${MEM[dense,ours]}" "${MEM[dense,redis]}") |"
  fi
} | tee "$REPORT"
bench_log "report saved as $REPORT"
