#!/usr/bin/env bash
# io-threads, redis-tp against Debian's Redis 7.0, each with the same setting: requests/s,
# the server's CPU per request, and the share of it the main thread spent, for io-threads 1,
# io-threads N (threaded writes) and io-threads N with io-threads-do-reads yes.
#
# Usage: utils/bench-io-threads.sh [--ours PATH] [--redis PATH] [--requests N] [--rounds N]
#   --ours PATH     server under test (default: src/redis-server in this repository)
#   --redis PATH    reference server (default: /usr/bin/redis-server)
#   --requests N    requests of each -P 16 run (default 1000000; the -P 1 runs take a fifth)
#   --rounds N      runs per side, setting and load (default 3); each figure is the median
# Environment: BENCH_IO_THREADS (default 2) is the N above.
#
# Method. For each setting both servers are started side by side (not pinned: the I/O threads
# need a core of their own) and loaded by redis-benchmark with SET and GET, three loads:
#  - few:  -c 2N-1 -P 1, too few clients for Redis's rule (threads only for a pass with at
#          least twice as many clients with output as threads): what an inactive io-threads
#          setting costs;
#  - c50:  -c 50 -P 1, fifty clients each waiting for its reply;
#  - p16:  -c 50 -P 16, pipelines.
# The server's CPU time comes from /proc/PID/stat around each run, its main thread's from
# /proc/PID/task/PID/stat; INFO's io_threaded_writes_processed and io_threaded_reads_processed
# say how many writes and reads went through the threads. Runs alternate between the servers.
#
# What a 2-core machine can show: with redis-benchmark on one core and the server's main thread
# on the other, a helper thread has no core of its own, so requests/s cannot rise here; the
# figures show what the threads cost and where the CPU went (the main thread's share drops when
# the writes move). Throughput gains need 4 cores or more (docs/multicore.md).
#
# The report is markdown on stdout; progress goes to stderr. Exit status: 0 when every step ran,
# 1 when a server died or a step failed, 2 on bad usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-io-threads
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"

usage() { bench_usage 6 11 "${1:-2}"; }
bench_parse_pair_options "$@"
readonly THREADS=${BENCH_IO_THREADS:-2}
trap 'bench_stop_all' EXIT

# Prints the user+system CPU seconds of SIDE's main thread.
main_thread_seconds() {
  local pid=${BENCH_PID[$1]} user sys
  read -r user sys < <(sed 's/.*) //' "/proc/$pid/task/$pid/stat" | awk '{ print $12, $13 }')
  awk -v u="$user" -v s="$sys" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.6f\n", (u + s) / hz }'
}

# Prints the user+system CPU seconds of the whole SIDE process.
process_seconds() {
  local pid=${BENCH_PID[$1]} user sys
  read -r user sys < <(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12, $13 }')
  awk -v u="$user" -v s="$sys" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.6f\n", (u + s) / hz }'
}

# One redis-benchmark run of TEST with CLIENTS and DEPTH against SIDE: prints
# "rps us_per_req main_share threaded_writes_per_req threaded_reads_per_req".
run_once() {
  local side=$1 test=$2 clients=$3 depth=$4 n=$5 out rps p0 p1 m0 m1 w0 w1 r0 r1
  p0=$(process_seconds "$side")
  m0=$(main_thread_seconds "$side")
  w0=$(bench_info_field "$side" stats io_threaded_writes_processed)
  r0=$(bench_info_field "$side" stats io_threaded_reads_processed)
  out=$(timeout 600 redis-benchmark -h 127.0.0.1 -p "${BENCH_PORT[$side]}" -c "$clients" \
    -P "$depth" -r 100000 -n "$n" -t "$test" -q 2>/dev/null | tr '\r' '\n' |
    grep -E 'requests per second' | tail -1) || die "redis-benchmark failed on $side"
  p1=$(process_seconds "$side")
  m1=$(main_thread_seconds "$side")
  w1=$(bench_info_field "$side" stats io_threaded_writes_processed)
  r1=$(bench_info_field "$side" stats io_threaded_reads_processed)
  require_alive "$side" "$test"
  rps=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "requests") { print $(i - 1); exit } }' <<<"$out")
  awk -v r="$rps" -v p0="$p0" -v p1="$p1" -v m0="$m0" -v m1="$m1" -v n="$n" \
    -v w="$((w1 - w0))" -v rd="$((r1 - r0))" \
    'BEGIN { share = (p1 > p0) ? (m1 - m0) / (p1 - p0) : 1;
             printf "%s %.4f %.2f %.4f %.4f\n", r, (p1 - p0) * 1e6 / n, share, w / n, rd / n }'
}

declare -A RES=()
SETTINGS=("1|--io-threads 1" "$THREADS|--io-threads $THREADS"
  "$THREADS+reads|--io-threads $THREADS --io-threads-do-reads yes")
LOADS=("few|$((2 * THREADS - 1))|1|$((REQUESTS / 5))" "c50|50|1|$((REQUESTS / 5))"
  "p16|50|16|$REQUESTS")

for setting in "${SETTINGS[@]}"; do
  name=${setting%%|*}
  BENCH_SERVER_ARGS=${setting#*|}
  bench_start ours "$OURS" || die "could not start $OURS"
  bench_start redis "$REDIS" || die "could not start $REDIS"
  for load in "${LOADS[@]}"; do
    IFS='|' read -r lname clients depth n <<<"$load"
    for test in set get; do
      for ((round = 1; round <= ROUNDS; round++)); do
        for side in ours redis; do
          bench_log "io-threads $name, $lname, $test, round $round, $side"
          RES["$name,$lname,$test,$side"]+="$(run_once "$side" "$test" "$clients" "$depth" "$n");"
        done
      done
    done
  done
  bench_stop ours
  bench_stop redis
done

# Median of field F (1-based) of the ;-separated results.
med_field() {
  local f=$1 list=$2 vals=()
  IFS=';' read -r -a rows <<<"$list"
  for row in "${rows[@]}"; do
    [[ -n $row ]] && vals+=("$(awk -v f="$f" '{ print $f }' <<<"$row")")
  done
  median "${vals[@]}"
}

echo "## io-threads, side by side ($(date -u '+%Y-%m-%d %H:%M UTC'), $ROUNDS rounds, medians)"
echo
echo "| io-threads | load | test | ours req/s | Redis req/s | ratio | ours CPU µs/req |" \
  "Redis CPU µs/req | ratio | main thread's share, ours / Redis | threaded writes per req," \
  "ours / Redis | threaded reads per req, ours / Redis |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|---|"
for setting in "${SETTINGS[@]}"; do
  name=${setting%%|*}
  for load in "${LOADS[@]}"; do
    lname=${load%%|*}
    for test in set get; do
      o=${RES["$name,$lname,$test,ours"]}
      r=${RES["$name,$lname,$test,redis"]}
      rps_o=$(med_field 1 "$o") rps_r=$(med_field 1 "$r")
      cpu_o=$(med_field 2 "$o") cpu_r=$(med_field 2 "$r")
      echo "| $name | $lname | ${test^^} | $(fmt %.0f "$rps_o") | $(fmt %.0f "$rps_r") |" \
        "$(ratio "$rps_o" "$rps_r") | $(fmt %.2f "$cpu_o") | $(fmt %.2f "$cpu_r") |" \
        "$(ratio "$cpu_o" "$cpu_r") | $(med_field 3 "$o") / $(med_field 3 "$r") |" \
        "$(fmt %.2f "$(med_field 4 "$o")") / $(fmt %.2f "$(med_field 4 "$r")") |" \
        "$(fmt %.2f "$(med_field 5 "$o")") / $(fmt %.2f "$(med_field 5 "$r")") |"
    done
  done
done
echo
echo "Command: \`utils/bench-io-threads.sh --requests $REQUESTS --rounds $ROUNDS\`" \
  "(BENCH_IO_THREADS=$THREADS). Machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)."
