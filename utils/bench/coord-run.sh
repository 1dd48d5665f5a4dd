# shellcheck shell=bash
# Steps shared by the scripts that drive the load tool (sourced, not run): running it under a
# time limit, reading its result lines, and the `hold` protocol (start, register, release)
# that keeps many watches or subscriptions open while the script samples a server.
#
# Requires utils/bench/servers.sh (die, bench_cli, require_alive ...) and, from the sourcing
# script: TOOL (the coord-bench binary), WORK (its scratch directory), NOFILE_WANTED and
# NOFILE_NEEDED (descriptor limits), HOLD_PID and HOLD_FD (empty at start; the EXIT trap ends a
# hold tool still running). One hold tool runs at a time.

# Prints the tool's result line for target NAME from a file of tool output.
result_line() {
  grep -E "^result name=$2 " "$1" | tail -n 1 || true
}

# Prints the side's used_memory in bytes (nothing when it is not reported).
used_memory() {
  bench_info_field "$1" memory used_memory
}

# Raises the soft descriptor limit (inherited by the servers and the tool) when it is low.
raise_fd_limit() {
  local soft hard
  soft=$(ulimit -Sn)
  hard=$(ulimit -Hn)
  if [[ $soft != unlimited ]] && ((soft < NOFILE_WANTED)); then
    if [[ $hard == unlimited ]] || ((hard >= NOFILE_WANTED)); then
      ulimit -Sn "$NOFILE_WANTED"
    else
      ulimit -Sn "$hard"
    fi
  fi
  soft=$(ulimit -Sn)
  if [[ $soft != unlimited ]] && ((soft < NOFILE_NEEDED)); then
    die "open-file limit is $soft (hard $hard); this benchmark needs $NOFILE_NEEDED." \
      "Raise it (ulimit -n) and run again"
  fi
}

# Runs the load tool under a time limit with its output in $WORK/$1.out and $WORK/$1.err.
# Usage: run_tool LABEL SECONDS ARG...
run_tool() {
  local label=$1 limit=$2 rc=0
  shift 2
  timeout "$limit" "$TOOL" "$@" >"$WORK/$label.out" 2>"$WORK/$label.err" || rc=$?
  if [[ -s $WORK/$label.err ]]; then
    sed "s/^/  [$label] /" "$WORK/$label.err" >&2
  fi
  ((rc == 124)) && die "coord-bench $1 ($label) did not finish within $limit s"
  ((rc == 0)) || die "coord-bench $1 ($label) failed with status $rc"
  return 0
}

# Waits up to SECONDS for a line matching PATTERN in FILE while process PID lives.
# Usage: wait_for_line FILE PATTERN SECONDS PID
wait_for_line() {
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    grep -qE "$2" "$1" 2>/dev/null && return 0
    kill -0 "$4" 2>/dev/null || { grep -qE "$2" "$1" 2>/dev/null; return; }
    sleep 0.1
  done
  return 1
}

# Starts `coord-bench hold` as NAME against SIDE with stdin from a FIFO that this shell keeps
# open (HOLD_FD), and waits until its connections are open. Usage: hold_start NAME SIDE ARG...
hold_start() {
  local name=$1 side=$2 fifo="$WORK/$1.ctl"
  shift 2
  mkfifo "$fifo"
  timeout 900 "$TOOL" hold --port "${BENCH_PORT[$side]}" --name "$name" --max-seconds 800 "$@" \
    <"$fifo" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  HOLD_PID=$!
  # Read-write, so that the open does not wait for the reader.
  exec {HOLD_FD}<>"$fifo"
  if ! wait_for_line "$WORK/$name.out" 'kind=connected' 120 "$HOLD_PID"; then
    cat "$WORK/$name.err" >&2
    require_alive "$side" "opening the connections of '$name'"
    die "hold '$name' did not open its connections"
  fi
}

# Lets the hold tool register its watches and waits until it has.
hold_register() {
  local name=$1 side=$2
  echo go >&"$HOLD_FD"
  if ! wait_for_line "$WORK/$name.out" 'kind=hold' 300 "$HOLD_PID"; then
    cat "$WORK/$name.err" >&2
    require_alive "$side" "registering the watches of '$name'"
    die "hold '$name' did not register its watches"
  fi
}

# Ends the hold tool (end of file on its stdin) and waits for it to close its connections.
hold_release() {
  local i
  [[ -n ${HOLD_FD:-} ]] && exec {HOLD_FD}>&-
  HOLD_FD=""
  for ((i = 0; i < 300; i++)); do
    kill -0 "$HOLD_PID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$HOLD_PID" 2>/dev/null; then
    kill -TERM "$HOLD_PID" 2>/dev/null || true
  fi
  wait "$HOLD_PID" 2>/dev/null || true
  HOLD_PID=""
}

# One redis-benchmark run of `-t NAME` at pipeline depth PIPELINE against SIDE (-c
# $BENCH_CLIENTS, -r $BENCH_KEYSPACE), with the side's CPU time sampled around it. Sets
# RUN_RPS (requests/s) and RUN_US (server CPU microseconds per request, empty when the side
# reports no CPU time); dies when the run fails or the server dies.
# Usage: redis_benchmark_run SIDE LABEL PIPELINE NAME REQUESTS
# shellcheck disable=SC2034  # RUN_US is the caller's to read
redis_benchmark_run() {
  local side=$1 label=$2 pipeline=$3 name=$4 requests=$5 cpu0 cpu1 out rc=0
  cpu0=$(bench_cpu_seconds "$side")
  out=$(timeout $((30 + requests / 5000)) redis-benchmark -h 127.0.0.1 \
    -p "${BENCH_PORT[$side]}" -c "$BENCH_CLIENTS" -P "$pipeline" -r "$BENCH_KEYSPACE" \
    -n "$requests" -t "$name" --csv 2>"$WORK/benchmark.err") || rc=$?
  require_alive "$side" "redis-benchmark $label"
  cpu1=$(bench_cpu_seconds "$side")
  RUN_RPS=$(awk -F, '{ gsub(/"/, "") } $1 != "test" && $2 + 0 > 0 { print $2; exit }' <<<"$out")
  if ((rc != 0)) || [[ -z $RUN_RPS ]]; then
    cat "$WORK/benchmark.err" >&2
    die "redis-benchmark '$label' against '$side' failed (exit $rc): ${out:-no output}"
  fi
  RUN_US=""
  if [[ -n $cpu0 && -n $cpu1 ]]; then
    RUN_US=$(awk -v a="$cpu0" -v b="$cpu1" -v n="$requests" \
      'BEGIN { printf "%.3f", (b - a) * 1e6 / n }')
  fi
}
