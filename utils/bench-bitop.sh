#!/usr/bin/env bash
# BITOP on 1 MB strings: Redis 8.2's DIFF, DIFF1, ANDOR and ONE against 2.6's AND, OR and XOR.
#
# Usage: utils/bench-bitop.sh [--ours PATH] [--redis PATH] [--requests N] [--rounds N]
#   --ours PATH     server under test (default: src/redis-server in this repository)
#   --redis PATH    reference server (default: /usr/bin/redis-server); it runs AND, OR, XOR
#                   only, as Redis 7.0 has no newer operation
#   --requests N    BITOP calls per run (default 2000)
#   --rounds N      runs per side and operation; the median is reported (default 3)
#
# Method. Both servers run at once on free loopback ports (utils/bench/servers.sh: no config
# file, no persistence). Each gets three 1 MB strings of random bytes, src:a, src:b and src:c
# (the same bytes on both), set once. Then, per operation, redis-benchmark runs `BITOP <op>
# dest:<n> src:a src:b src:c` with one connection and no pipelining (each call reads 3 MB and
# writes 1 MB, so the server's work dominates the round trip), the destination cycling over 10
# keys; runs alternate between the servers. Reported per operation: calls per second and the
# server's CPU microseconds per call from INFO cpu around the run, each side's median.
#
# The report is markdown on stdout; progress goes to stderr. Exit status: 0 when every step ran,
# 1 when a server died or a step failed, 2 on bad usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-bitop
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"

usage() { bench_usage 4 10 "${1:-2}"; }

OURS="$ROOT/src/redis-server"
REDIS=/usr/bin/redis-server
REQUESTS=2000
ROUNDS=3
while (($#)); do
  case $1 in
    --ours) need_value "$1" "${2:-}" '.'; OURS=$2; shift 2 ;;
    --redis) need_value "$1" "${2:-}" '.'; REDIS=$2; shift 2 ;;
    --requests) need_value "$1" "${2:-}" '^[1-9][0-9]*$'; REQUESTS=$2; shift 2 ;;
    --rounds) need_value "$1" "${2:-}" '^[1-9][0-9]*$'; ROUNDS=$2; shift 2 ;;
    -h | --help) usage 0 ;;
    *) bench_log "bench-bitop: unknown option '$1'"; usage ;;
  esac
done
for bin in "$OURS" "$REDIS"; do
  [[ -x $bin ]] || die "'$bin' is not an executable"
done
command -v redis-benchmark >/dev/null || die "redis-benchmark is not installed"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-bitop.XXXXXX")
cleanup() {
  bench_stop_all
  rm -rf -- "$WORK"
}
trap cleanup EXIT

bench_start ours "$OURS" || die "could not start '$OURS'"
bench_start redis "$REDIS" || die "could not start '$REDIS'"
bench_probe_cpu_source ours
bench_probe_cpu_source redis

for src in a b c; do
  head -c 1048576 /dev/urandom >"$WORK/$src"
  for side in ours redis; do
    timeout 60 redis-cli -h 127.0.0.1 -p "${BENCH_PORT[$side]}" -x set "src:$src" \
      <"$WORK/$src" >/dev/null || die "loading src:$src into $side failed"
  done
done

# One run: prints "calls_per_sec us_per_call".
run_once() {
  local side=$1 op=$2 out cpu0 cpu1 rps
  cpu0=$(bench_cpu_seconds "$side")
  out=$(timeout 600 redis-benchmark -h 127.0.0.1 -p "${BENCH_PORT[$side]}" -c 1 -P 1 -r 10 \
    -n "$REQUESTS" -q BITOP "$op" dest:__rand_int__ src:a src:b src:c 2>/dev/null |
    tr '\r' '\n' | grep -E 'requests per second' | tail -1) || die "redis-benchmark failed on $side"
  cpu1=$(bench_cpu_seconds "$side")
  require_alive "$side" "BITOP $op"
  rps=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "requests") { print $(i - 1); exit } }' <<<"$out")
  awk -v r="$rps" -v a="$cpu0" -v b="$cpu1" -v n="$REQUESTS" \
    'BEGIN { printf "%s %.1f\n", r, (b - a) * 1e6 / n }'
}

# The median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "| operation | ours calls/s | ours CPU µs/call | Redis 7.0 calls/s | Redis 7.0 CPU µs/call |"
echo "|---|---|---|---|---|"
for op in AND OR XOR DIFF DIFF1 ANDOR ONE; do
  sides=(ours)
  [[ $op == AND || $op == OR || $op == XOR ]] && sides=(ours redis)
  declare -A rps=() us=()
  for ((round = 0; round < ROUNDS; round++)); do
    for side in "${sides[@]}"; do
      bench_log "bench-bitop: BITOP $op on $side, round $((round + 1))/$ROUNDS"
      read -r r u < <(run_once "$side" "$op")
      rps[$side]+="$r "
      us[$side]+="$u "
    done
  done
  row="| $op"
  for side in ours redis; do
    if [[ -n ${rps[$side]:-} ]]; then
      row+=" | $(tr ' ' '\n' <<<"${rps[$side]}" | grep . | median)"
      row+=" | $(tr ' ' '\n' <<<"${us[$side]}" | grep . | median)"
    else
      row+=" | (no such operation) | "
    fi
  done
  echo "$row |"
  unset rps us
done
