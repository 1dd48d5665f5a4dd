#!/usr/bin/env bash
# Tail latency, redis-tp against Debian's Redis 7.0: p50, p99 and p99.9 of GET and SET under
# load, on a server holding 1M keys, while idle, while BGSAVE runs and while an AOF rewrite runs.
#
# Usage: utils/bench-tail.sh [--ours PATH] [--redis PATH] [--requests N] [--rounds N]
#   --ours PATH     server under test (default: src/redis-server in this repository)
#   --redis PATH    reference server (default: /usr/bin/redis-server)
#   --requests N    requests of each measured run (default 300000)
#   --rounds N      runs per side, test and phase (default 3); each figure is the median
# Environment: BENCH_SERVER_CPUS / BENCH_CLIENT_CPUS (taskset core lists) pin the servers and
# redis-benchmark apart, e.g. BENCH_SERVER_CPUS=1 BENCH_CLIENT_CPUS=0.
#
# Method. Both servers run at once on free loopback ports, each filled by DEBUG POPULATE with
# 1M keys ("key:N", about 100 MB). A measured run is `redis-benchmark -c 50 -P 1 -r 1000000
# -n N -t get|set` (its keys are the populated ones): 50 clients, each waiting for its reply,
# the load under which the latency is read. Its own histogram gives the figures: p50 and p99
# from its summary, p99.9 as the first row of its percentile distribution at or above 99.9%
# (99.902%), and max. The phases:
#  - idle: nothing else runs;
#  - bgsave: a loop starts BGSAVE every 1.5 s (later if the last save is still running) for the
#    whole measured run, so the run sees forks, children writing 1M keys and their
#    copy-on-write, at the same rate on both servers;
#  - aofrw: the same loop with BGREWRITEAOF.
# Runs alternate between the servers (ours, Redis, ours, ...) so that whatever else the machine
# does lands on both alike. The fork of a 100 MB process and the child's competition for the 2
# cores are in both servers' figures; the ratio is what the benchmark reports.
#
# The report is markdown on stdout; progress goes to stderr. Exit status: 0 when every step ran,
# 1 when a server died or a step failed, 2 on bad usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-tail
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"

usage() { bench_usage 5 11 "${1:-2}"; }
bench_parse_pair_options "$@"
# The shared parser's default is sized for -P 16 runs; -P 1 runs take a third of it.
[[ " $* " == *" --requests "* ]] || REQUESTS=300000
readonly KEYS=1000000

# DEBUG POPULATE fills the servers.
BENCH_SERVER_ARGS="--enable-debug-command yes"
trap 'bench_stop_all; kill "${LOOP_PID:-0}" 2>/dev/null || true' EXIT
bench_start ours "$OURS" || die "could not start $OURS"
bench_start redis "$REDIS" || die "could not start $REDIS"
for side in ours redis; do
  bench_cli "$side" config set appendonly no >/dev/null
  [[ $(bench_cli "$side" debug populate "$KEYS") == OK ]] || die "DEBUG POPULATE failed on $side"
  bench_log "$side: $(bench_cli "$side" dbsize) keys, used_memory" \
    "$(bench_info_field "$side" memory used_memory_human)"
done

# Prints 1 while SIDE has a save or rewrite child, else 0.
child_running() {
  local info
  info=$(bench_cli "$1" info persistence)
  if grep -qE '^(rdb_bgsave_in_progress|aof_rewrite_in_progress):1' <<<"$info"; then
    echo 1
  else
    echo 0
  fi
}

# Waits up to 60 s for SIDE's child to end.
wait_no_child() {
  local i
  for ((i = 0; i < 600; i++)); do
    [[ $(child_running "$1") == 0 ]] && return 0
    sleep 0.1
  done
  die "a child of '$1' still runs after 60 s"
}

# Runs in the background: every CHILD_PERIOD seconds starts COMMAND (bgsave or bgrewriteaof) on
# SIDE, at once if a child is still running then, until killed. Counts the starts in FILE. A
# fixed period gives both servers the same number of forks per second (started whenever the
# last one ended, the faster saver would be forked more often).
readonly CHILD_PERIOD=1.5
child_loop() {
  local side=$1 command=$2 file=$3 n=0
  while true; do
    while [[ $(child_running "$side") == 1 ]]; do sleep 0.02; done
    bench_cli "$side" "$command" >/dev/null 2>&1 && n=$((n + 1)) && echo "$n" >"$file"
    sleep "$CHILD_PERIOD"
  done
}

# One measured run of TEST on SIDE; prints "p50 p99 p999 max" in milliseconds.
measure() {
  local side=$1 test=$2 out pin=()
  [[ -n ${BENCH_CLIENT_CPUS:-} ]] && pin=(taskset -c "$BENCH_CLIENT_CPUS")
  out=$(timeout 600 "${pin[@]}" redis-benchmark -h 127.0.0.1 -p "${BENCH_PORT[$side]}" -c 50 \
    -P 1 -r "$KEYS" -n "$REQUESTS" -t "$test" 2>/dev/null | tr '\r' '\n') ||
    die "redis-benchmark failed on $side"
  require_alive "$side" "$test"
  awk '
    /^Latency by percentile distribution/ { dist = 1; next }
    dist && /^[0-9.]+% <=/ { p = $1; sub("%", "", p); if (p + 0 >= 99.9 && p999 == "") p999 = $3 }
    dist && /^$/ { dist = 0 }
    /latency summary/ { summary = 1; next }
    summary && $1 ~ /^[0-9.]+$/ { p50 = $3; p99 = $5; max = $6; summary = 0 }
    END { if (p50 == "" || p999 == "") exit 1; print p50, p99, p999, max }' <<<"$out" ||
    die "no latency figures in redis-benchmark's output for $side"
}

declare -A FIG=() STARTS=()
readonly PHASES=(idle bgsave aofrw)
for ((round = 1; round <= ROUNDS; round++)); do
  for phase in "${PHASES[@]}"; do
    for test in get set; do
      for side in ours redis; do
        wait_no_child "$side"
        LOOP_PID=
        count_file=$(mktemp)
        echo 0 >"$count_file"
        case $phase in
          bgsave) child_loop "$side" bgsave "$count_file" & LOOP_PID=$! ;;
          aofrw) child_loop "$side" bgrewriteaof "$count_file" & LOOP_PID=$! ;;
        esac
        figs=$(measure "$side" "$test")
        read -r p50 p99 p999 max <<<"$figs"
        if [[ -n $LOOP_PID ]]; then
          kill "$LOOP_PID" 2>/dev/null || true
          wait "$LOOP_PID" 2>/dev/null || true
        fi
        starts=$(cat "$count_file")
        rm -f "$count_file"
        k=$side.$phase.$test
        FIG[$k.p50]+="$p50 " FIG[$k.p99]+="$p99 " FIG[$k.p999]+="$p999 " FIG[$k.max]+="$max "
        STARTS[$k]+="$starts "
        bench_log "round $round $phase ${test^^} $side: p50 $p50 p99 $p99 p99.9 $p999 max $max ms" \
          "($starts children started)"
      done
    done
  done
done

# Prints "median (min-max)" of the per-round ratios OURS[i] / REDIS[i] (two lists of words,
# round by round: the two servers' runs of a round follow each other, so they saw the same
# machine).
round_ratios() {
  local -a a b r=()
  read -r -a a <<<"$1"
  read -r -a b <<<"$2"
  local i
  for ((i = 0; i < ${#a[@]}; i++)); do r+=("$(ratio "${a[$i]}" "${b[$i]:-}")"); done
  printf '%s (%s-%s)\n' "$(fmt %.2f "$(median "${r[@]}")")" \
    "$(printf '%s\n' "${r[@]}" | sort -g | head -1)" "$(printf '%s\n' "${r[@]}" | sort -g | tail -1)"
}

phase_name() {
  case $1 in
    idle) echo "idle" ;;
    bgsave) echo "during BGSAVE" ;;
    aofrw) echo "during BGREWRITEAOF" ;;
  esac
}

echo "# Tail latency with 1M keys: idle, during BGSAVE, during an AOF rewrite"
echo
echo "\`redis-benchmark -c 50 -P 1 -r $KEYS -n $REQUESTS -t get|set\` against each server"
echo "holding $KEYS keys (DEBUG POPULATE); $ROUNDS rounds, medians, milliseconds; children"
echo "started per run in parentheses (median); the ratios are the median of the rounds' own ratios"
echo "(smallest-largest); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| phase | test | redis-tp p50 / p99 / p99.9 / max | Redis 7.0 p50 / p99 / p99.9 / max | ours ÷ Redis p50 | p99 | p99.9 |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for phase in "${PHASES[@]}"; do
  for test in get set; do
    cells=()
    for side in ours redis; do
      k=$side.$phase.$test
      # shellcheck disable=SC2086  # the lists are words
      cells+=("$(median ${FIG[$k.p50]}) / $(median ${FIG[$k.p99]}) / $(median ${FIG[$k.p999]}) / $(median ${FIG[$k.max]}) ($(median ${STARTS[$k]}))")
    done
    ratios=()
    for p in p50 p99 p999; do
      ratios+=("$(round_ratios "${FIG[ours.$phase.$test.$p]}" "${FIG[redis.$phase.$test.$p]}")")
    done
    echo "| $(phase_name "$phase") | ${test^^} | ${cells[0]} | ${cells[1]} | ${ratios[0]} | ${ratios[1]} | ${ratios[2]} |"
  done
done
