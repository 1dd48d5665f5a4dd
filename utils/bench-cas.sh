#!/usr/bin/env bash
# Compare-and-set micro-benchmark: SET ... IFEQ, DELIFEQ, DELEX ... IFEQ and DIGEST beside
# plain SET, DEL and GET, and the Lua release script they replace, on redis-tp and on Debian's
# Redis 7.0 (which runs only the commands it has).
#
# Usage: utils/bench-cas.sh [--ours PATH] [--redis PATH] [--requests N] [--rounds N]
#   --ours PATH     server under test (default: src/redis-server)
#   --redis PATH    reference server (default: /usr/bin/redis-server)
#   --requests N    requests per run (default 1000000)
#   --rounds N      runs per side and row; the median is reported (default 3)
#
# Method. Both servers run at once (utils/bench/servers.sh: loopback, no persistence). Each row
# is `redis-benchmark -c 50 -P 16 -n N` of one fixed command against the key `lock`, set to
# `tok` before every run: the conditional commands exercise their whole path (SET IFEQ writes,
# as its condition holds; DELIFEQ and DELEX compare and find another value, so the key stays for
# the next request, the cost of a release minus DEL's removal). Rows alternate between the
# servers; the report gives requests per second and server CPU microseconds per request (INFO
# cpu around each run, the steadier figure on a busy machine), medians over the rounds.
# Markdown on stdout; exit status 0 when every run completed, 1 otherwise, 2 on bad usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-cas
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"

usage() { bench_usage 6 10 "${1:-2}"; }
bench_parse_pair_options "$@"

readonly RELEASE="if redis.call('GET',KEYS[1])==ARGV[1] then return redis.call('DEL',KEYS[1]) end return 0"
# One row per line: label | sides that run it | command.
readonly ROWS=(
  "SET lock tok|ours redis|SET lock tok"
  "SET lock tok IFEQ tok|ours|SET lock tok IFEQ tok"
  "GET lock|ours redis|GET lock"
  "DIGEST lock|ours|DIGEST lock"
  "DEL of a missing key|ours redis|DEL nokey"
  "DELIFEQ lock other|ours|DELIFEQ lock other"
  "DELEX lock IFEQ other|ours|DELEX lock IFEQ other"
  "EVAL release script, lock other|ours redis|EVAL $RELEASE 1 lock other"
)

# One run of COMMAND... against SIDE: prints "req_per_sec us_per_req".
run_once() {
  local side=$1 out rps cpu0 cpu1
  shift
  bench_cli "$side" set lock tok >/dev/null
  cpu0=$(bench_cpu_seconds "$side")
  out=$(timeout 600 redis-benchmark -h 127.0.0.1 -p "${BENCH_PORT[$side]}" -c 50 -P 16 \
    -n "$REQUESTS" -q "$@" 2>/dev/null | tr '\r' '\n' | grep -E 'requests per second' |
    tail -1) || die "redis-benchmark failed on $side"
  cpu1=$(bench_cpu_seconds "$side")
  require_alive "$side" "$*"
  rps=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "requests") { print $(i - 1); exit } }' <<<"$out")
  awk -v r="$rps" -v a="$cpu0" -v b="$cpu1" -v n="$REQUESTS" \
    'BEGIN { printf "%s %.4f\n", r, (b - a) * 1e6 / n }'
}

trap bench_stop_all EXIT
bench_start ours "$OURS" || die "cannot start $OURS"
bench_start redis "$REDIS" || die "cannot start $REDIS"
bench_probe_cpu_source ours
bench_probe_cpu_source redis

declare -A RPS=() CPU=()
for ((round = 1; round <= ROUNDS; round++)); do
  for row in "${ROWS[@]}"; do
    IFS='|' read -r label sides command <<<"$row"
    if [[ $command == EVAL* ]]; then
      argv=(EVAL "$RELEASE" 1 lock other)
    else
      read -r -a argv <<<"$command"
    fi
    for side in $sides; do
      bench_log "round $round: $side: $label"
      read -r rps us < <(run_once "$side" "${argv[@]}")
      RPS[$label,$side]+="$rps "
      CPU[$label,$side]+="$us "
    done
  done
done

echo "| command (-P 16, $REQUESTS requests, median of $ROUNDS) | redis-tp req/s | CPU µs/req | Redis 7.0 req/s | CPU µs/req |"
echo "|---|---:|---:|---:|---:|"
for row in "${ROWS[@]}"; do
  IFS='|' read -r label sides _ <<<"$row"
  line="| $label "
  for side in ours redis; do
    if [[ " $sides " == *" $side "* ]]; then
      # shellcheck disable=SC2086  # the lists are space-separated numbers
      line+="| $(fmt '%.0f' "$(median ${RPS[$label,$side]})") | $(fmt '%.3f' "$(median ${CPU[$label,$side]})") "
    else
      line+="| — | — "
    fi
  done
  echo "$line|"
done
