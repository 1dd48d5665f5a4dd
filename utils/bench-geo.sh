#!/usr/bin/env bash
# Benchmarks of the geo commands, side by side with Debian's Redis 7.0.
#
# Usage: utils/bench-geo.sh [--ours PATH] [--redis PATH] [--requests N] [--rounds N] [--quick]
#   --ours PATH     server under test (default: src/redis-server in this repository)
#   --redis PATH    reference server (default: /usr/bin/redis-server)
#   --requests N    requests per -P 1 run; -P 16 runs carry 4 times more (default 100000)
#   --rounds N      runs per side and test; the median is reported (default 3)
#   --quick         --requests 20000 --rounds 1, to check that everything works
#
# Method. Both servers run at once on free loopback ports (utils/bench/servers.sh: no config
# file, no persistence). Each is loaded with the same index, geo:idx: 100,000 points spread
# evenly over one degree by one degree around (13.5, 38) (about 88 km by 111 km, some 10 points
# per square km), named m:000000000000 ... m:000000099999 as redis-benchmark's __rand_int__
# spells them, and sent with `redis-cli --pipe`.
#   - GEOADD: `GEOADD geo:add 13.__rand_int__ 38.__rand_int__ m:__rand_int__` (-r 100000), the
#     key deleted before every run;
#   - GEOSEARCH: `GEOSEARCH geo:idx FROMMEMBER m:__rand_int__ BYRADIUS 1 km ASC` (about 30
#     hits each), and the same BYBOX 2 2 km WITHDIST; each reply is checked first to hold the
#     same members on both sides.
# redis-benchmark runs with -c 50 at pipeline depths 1 and 16, alternating between the servers
# so the shared machine's load lands on both alike; the median of the rounds. Around every run
# the server's CPU time (INFO cpu) is sampled, giving CPU microseconds per request. Memory per
# geo member: the growth of used_memory while loading geo:idx into the empty server, divided by
# 100,000 (a skiplist-encoded sorted set on both).
#
# The report is markdown on stdout, also saved as utils/bench-results/geo-<time>.md; progress
# goes to stderr. Goals (issue 11): GEOADD and GEOSEARCH >= 1.0x Redis. Exit status: 0 when every
# step ran, 1 when a server died or a step failed, 2 on bad usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-geo
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"

readonly CLIENTS=50
readonly POINTS=100000

usage() { bench_usage 4 9; }

OURS="$ROOT/src/redis-server"
REDIS=/usr/bin/redis-server
REQUESTS=100000
ROUNDS=3
while (($# > 0)); do
  case $1 in
    --ours) need_value "$1" "${2:-}" '.'; OURS=$2; shift 2 ;;
    --redis) need_value "$1" "${2:-}" '.'; REDIS=$2; shift 2 ;;
    --requests) need_value "$1" "${2:-}" '^[0-9]+$'; REQUESTS=$2; shift 2 ;;
    --rounds) need_value "$1" "${2:-}" '^[0-9]+$'; ROUNDS=$2; shift 2 ;;
    --quick) REQUESTS=20000; ROUNDS=1; shift ;;
    -h | --help) bench_usage 4 9 0 ;;
    *) usage ;;
  esac
done
for tool in redis-cli redis-benchmark timeout awk; do
  command -v "$tool" >/dev/null || die "$tool is not installed"
done
[[ -x $OURS ]] || die "no server at $OURS (build it first)"
[[ -x $REDIS ]] || die "no reference server at $REDIS"

trap bench_stop_all EXIT
bench_start ours "$OURS" || die "could not start $OURS"
bench_start redis "$REDIS" || die "could not start $REDIS"
for side in ours redis; do bench_probe_cpu_source "$side"; done

# The index: POINTS GEOADD commands of one point each, on a 317 x 316 grid (step 1/316 degree).
load_index() {
  local side=$1 out
  out=$(awk -v n="$POINTS" 'BEGIN {
    for (i = 0; i < n; i++) {
      lon = 13 + (i % 316) / 316 + 0.0001; lat = 37.5 + int(i / 316) / 316 + 0.0001
      m = sprintf("m:%012d", i)
      printf "*5\r\n$6\r\nGEOADD\r\n$7\r\ngeo:idx\r\n$%d\r\n%.6f\r\n$%d\r\n%.6f\r\n$%d\r\n%s\r\n",
        length(sprintf("%.6f", lon)), lon, length(sprintf("%.6f", lat)), lat, length(m), m
    } }' | timeout 300 redis-cli -h 127.0.0.1 -p "${BENCH_PORT[$side]}" --pipe 2>&1) ||
    die "loading the index into '$side' failed: $out"
  grep -q "errors: 0" <<<"$out" || die "loading the index into '$side' failed: $out"
}

declare -A MEM=()
for side in ours redis; do
  bench_cli "$side" flushall >/dev/null
  before=$(bench_info_field "$side" memory used_memory)
  load_index "$side"
  after=$(bench_info_field "$side" memory used_memory)
  MEM[$side]=$(awk -v a="$before" -v b="$after" -v n="$POINTS" 'BEGIN { printf "%.1f", (b - a) / n }')
  [[ $(bench_cli "$side" zcard geo:idx) == "$POINTS" ]] || die "'$side' holds the wrong index"
  bench_log "memory: $side: ${MEM[$side]} B per geo member ($(bench_cli "$side" object encoding geo:idx))"
done

# The searches must answer alike before they are timed.
for probe in "m:000000012345" "m:000000099999" "m:000000000000"; do
  for shape in "BYRADIUS 1 km ASC" "BYBOX 2 2 km WITHDIST"; do
    # shellcheck disable=SC2086
    a=$(bench_cli ours geosearch geo:idx frommember "$probe" $shape | sort)
    # shellcheck disable=SC2086
    b=$(bench_cli redis geosearch geo:idx frommember "$probe" $shape | sort)
    [[ -n $a && $a == "$b" ]] || die "GEOSEARCH $probe $shape differs between the servers"
  done
done
hits=$(bench_cli redis geosearch geo:idx frommember m:000000050000 byradius 1 km | wc -l)
bench_log "a 1 km search around m:000000050000 finds $hits members"

# label | pipeline | request multiple | key to delete first ("-": none) | command
readonly TESTS=(
  "GEOADD -P 1|1|1|geo:add|GEOADD geo:add 13.__rand_int__ 38.__rand_int__ m:__rand_int__"
  "GEOADD -P 16|16|4|geo:add|GEOADD geo:add 13.__rand_int__ 38.__rand_int__ m:__rand_int__"
  "GEOSEARCH BYRADIUS 1 km -P 1|1|1|-|GEOSEARCH geo:idx FROMMEMBER m:__rand_int__ BYRADIUS 1 km ASC"
  "GEOSEARCH BYRADIUS 1 km -P 16|16|4|-|GEOSEARCH geo:idx FROMMEMBER m:__rand_int__ BYRADIUS 1 km ASC"
  "GEOSEARCH BYBOX 2x2 km -P 1|1|1|-|GEOSEARCH geo:idx FROMMEMBER m:__rand_int__ BYBOX 2 2 km WITHDIST"
  "GEOSEARCH BYBOX 2x2 km -P 16|16|4|-|GEOSEARCH geo:idx FROMMEMBER m:__rand_int__ BYBOX 2 2 km WITHDIST"
)
declare -A RPS=() US=()

run_one() {
  local idx=$1 side=$2 label pipeline mult del cmd requests cpu0 cpu1 out rps errs0 errs1
  IFS='|' read -r label pipeline mult del cmd <<<"${TESTS[$idx]}"
  requests=$((REQUESTS * mult))
  [[ $del != - ]] && bench_cli "$side" del "$del" >/dev/null
  errs0=$(bench_info_field "$side" stats total_error_replies)
  cpu0=$(bench_cpu_seconds "$side")
  # shellcheck disable=SC2086
  out=$(timeout 600 redis-benchmark -h 127.0.0.1 -p "${BENCH_PORT[$side]}" -c "$CLIENTS" \
    -P "$pipeline" -r "$POINTS" -n "$requests" --csv $cmd 2>/dev/null) ||
    die "redis-benchmark '$label' against '$side' failed"
  cpu1=$(bench_cpu_seconds "$side")
  errs1=$(bench_info_field "$side" stats total_error_replies)
  require_alive "$side" "$label"
  [[ ${errs0:-0} == "${errs1:-0}" ]] || die "'$label' got error replies from '$side'"
  rps=$(awk -F, '{ gsub(/"/, "") } $1 != "test" && $2 + 0 > 0 { r = $2 } END { print r }' <<<"$out")
  [[ -n $rps ]] || die "no figure from redis-benchmark '$label' against '$side': $out"
  RPS["$idx,$side"]+=" $rps"
  if [[ -n $cpu0 && -n $cpu1 ]]; then
    US["$idx,$side"]+=" $(awk -v a="$cpu0" -v b="$cpu1" -v n="$requests" \
      'BEGIN { printf "%.3f", (b - a) * 1e6 / n }')"
  fi
  bench_log "$(printf '%-32s %-5s %10.0f rps' "$label" "$side" "$rps")"
}

for ((round = 0; round < ROUNDS; round++)); do
  for idx in "${!TESTS[@]}"; do
    if ((round % 2 == 0)); then order=(ours redis); else order=(redis ours); fi
    for side in "${order[@]}"; do run_one "$idx" "$side"; done
  done
done

mkdir -p "$ROOT/utils/bench-results"
report="$ROOT/utils/bench-results/geo-$(date -u +%Y%m%dT%H%M%SZ).md"
{
  echo "# Geo benchmark: redis-tp vs Redis $("$REDIS" --version | awk '{ print $3 }' | tr -d 'v=')"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs; redis-benchmark -c $CLIENTS -r $POINTS," \
    "median of $ROUNDS rounds; index of $POINTS points, ~$hits hits per 1 km search."
  echo
  echo "| test | ours rps | redis rps | ratio | ours us/req | redis us/req | CPU ratio (redis/ours) |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for idx in "${!TESTS[@]}"; do
    IFS='|' read -r label _ <<<"${TESTS[$idx]}"
    # shellcheck disable=SC2086
    o=$(median ${RPS["$idx,ours"]}); r=$(median ${RPS["$idx,redis"]})
    # shellcheck disable=SC2086
    ou=$(median ${US["$idx,ours"]:-}); ru=$(median ${US["$idx,redis"]:-})
    echo "| $label | $(fmt %.0f "$o") | $(fmt %.0f "$r") | $(ratio "$o" "$r") |" \
      "$(fmt %.2f "$ou") | $(fmt %.2f "$ru") | $(ratio "$ru" "$ou") |"
  done
  echo
  echo "| memory per geo member (used_memory growth / $POINTS) | ours | redis |"
  echo "|---|---:|---:|"
  echo "| bytes | ${MEM[ours]} | ${MEM[redis]} |"
} | tee "$report"
bench_log "report saved as $report"
