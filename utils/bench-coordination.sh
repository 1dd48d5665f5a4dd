#!/usr/bin/env bash
# Benchmarks of temporary keys and existence watches, side by side with Debian's Redis 7.0.
#
# Usage: utils/bench-coordination.sh [--ours PATH] [--redis PATH] [--quick] [--rounds N]
#                                    [--only LIST]
#   --ours PATH    server under test (default: src/redis-server in this repository)
#   --redis PATH   reference server (default: /usr/bin/redis-server)
#   --quick        a shorter run (fewer changes, hand-offs and rounds) to check that all works
#   --rounds N     redis-benchmark rounds per side and test in part 4 (default 5, quick 2)
#   --only LIST    comma-separated parts to run: fanout,handoff,memory,idle (default: all)
#
# Method. Servers run at once on free loopback ports (utils/bench/servers.sh: no config file, no
# persistence); the load comes from build/coord-bench/coord-bench (C++ sources in
# utils/coord-bench/, compiled here with g++ when missing or older than its sources), which
# talks RESP2/RESP3 over plain sockets and stamps time with CLOCK_MONOTONIC.
#  1. Fan-out: W watchers of one key (W = 100 and 1,000, one connection each) and a writer that
#     alternates SET and DEL, one change at a time with a 1 ms pause. Latency is taken per
#     (change, watcher) pair, from just before the writer sends to the watcher's read. Ours:
#     WATCHEX on RESP3 and on RESP2 connections; Redis: keyspace notifications (KEA), watchers
#     SUBSCRIBEd to __keyspace@0__:<key>. All targets share one epoll loop and take turns change
#     by change. Lost or misordered notifications are counted, not hidden.
#  2. Lock hand-off: the holder's socket is closed without releasing (a reset, SO_LINGER 0, and
#     an orderly FIN); latency runs from that close() to the waiter holding the lock. Ours with
#     SETTP + WATCHEX (retry on the DEL push) and with a blocked BSETTP, interleaved with a PING
#     round trip as the machine's floor; Redis with SET NX PX 1000 and a keyspace-event waiter,
#     where only the TTL frees the lock.
#  3. Memory per watch: used_memory after the connections are open (and have sent one PING) and
#     after 1,000,000 (connection, key) pairs are registered, in two shapes: 1,000 connections
#     x the same 1,000 keys, and 100 connections x 10,000 keys of their own. Redis's
#     counterpart is one keyspace-channel subscription per pair.
#  4. Cost when unused: redis-benchmark SET/GET at -P 16 and -P 1 (-c 50, -r 100000) on ours,
#     on Redis, and on a second instance of ours whose 100,000 other keys are watched by 4 idle
#     connections (400,000 watches that never fire). Runs rotate between the three servers;
#     medians of the rounds; CPU microseconds per request from INFO cpu.
#
# The report is markdown on stdout, also saved as utils/bench-results/coordination-<time>.md;
# progress goes to stderr. Goals are printed beside the figures; missing one is reported, not an
# error. Exit status: 0 when every part ran, 1 when a server died or a step failed, 2 on bad
# usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-coordination
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"
COORD_TOOL_ROOT=$ROOT
# shellcheck source=utils/bench/coord-tool.sh
source "$ROOT/utils/bench/coord-tool.sh"
# shellcheck source=utils/bench/coord-run.sh
source "$ROOT/utils/bench/coord-run.sh"

TOOL=$(coord_tool_path)
readonly TOOL
# Descriptors the fan-out needs: two or three targets x (1,000 watchers + writer), plus slack.
readonly NOFILE_WANTED=8192
readonly NOFILE_NEEDED=4096
readonly PARTS_RE='(fanout|handoff|memory|idle)'
readonly FANOUT_WATCHERS=(100 1000)
readonly FANOUT_PAUSE_US=1000
readonly HANDOFF_TTL_MS=1000
readonly IDLE_KEYS=100000
readonly IDLE_CONNS=4
readonly BENCH_CLIENTS=50
readonly BENCH_KEYSPACE=100000
# Part 4, one test per line: label | pipeline depth | redis-benchmark -t name.
readonly IDLE_TESTS=("SET -P 16|16|set" "GET -P 16|16|get" "SET -P 1|1|set" "GET -P 1|1|get")
# Part 3 shapes: label | connections | keys per connection | layout.
readonly MEMORY_SHAPES=(
  "1,000 conns x the same 1,000 keys|1000|1000|shared"
  "100 conns x 10,000 own keys|100|10000|distinct"
)

usage() { bench_usage 4 10 "${1:-2}"; }

# Prints the sum of the wx= fields of the side's CLIENT LIST (our existence-watch count).
watch_count() {
  bench_cli "$1" client list | { grep -o ' wx=[0-9]*' || true; } |
    awk -F= '{ s += $2 } END { print s + 0 }'
}

# Compiles the load tool when it is missing or older than any of its sources.
build_tool() {
  coord_tool_build || die "the load tool did not compile"
}

# Part 1: fan-out latency for each watcher count.
run_fanout() {
  local watchers label
  for watchers in "${FANOUT_WATCHERS[@]}"; do
    label="fanout-$watchers"
    bench_log "fanout: $watchers watchers, ${FANOUT_CHANGES[$watchers]} changes per target"
    run_tool "$label" 300 fanout --watchers "$watchers" --changes "${FANOUT_CHANGES[$watchers]}" \
      --pause-us "$FANOUT_PAUSE_US" --max-seconds 240 \
      --target "ours=${BENCH_PORT[ours]}:watchex3" \
      --target "redis=${BENCH_PORT[redis]}:keyspace" \
      --target "ours-resp2=${BENCH_PORT[ours]}:watchex2"
    require_alive ours "the fan-out with $watchers watchers"
    require_alive redis "the fan-out with $watchers watchers"
    sed 's/^/  /' "$WORK/$label.out" >&2
  done
}

# Part 2: lock hand-off after the holder's connection dies.
run_handoff() {
  local port=${BENCH_PORT[ours]}
  bench_log "handoff: ours, $HANDOFF_RUNS runs per method and close, interleaved"
  run_tool handoff-ours 150 handoff --runs "$HANDOFF_RUNS" --max-seconds 120 \
    --target "settp-watchex-rst=$port:settp-watchex@rst" --target "bsettp-rst=$port:bsettp@rst" \
    --target "settp-watchex-fin=$port:settp-watchex@fin" --target "bsettp-fin=$port:bsettp@fin" \
    --target "ping=$port:ping"
  require_alive ours "the hand-off runs"
  sed 's/^/  /' "$WORK/handoff-ours.out" >&2
  bench_log "handoff: redis, $REDIS_HANDOFF_RUNS runs, SET NX PX $HANDOFF_TTL_MS"
  run_tool handoff-redis $((REDIS_HANDOFF_RUNS * 8 + 30)) handoff --runs "$REDIS_HANDOFF_RUNS" \
    --ttl-ms "$HANDOFF_TTL_MS" --max-seconds $((REDIS_HANDOFF_RUNS * 7 + 20)) \
    --target "redis=${BENCH_PORT[redis]}:redis-ttl@rst"
  require_alive redis "the hand-off runs"
  sed 's/^/  /' "$WORK/handoff-redis.out" >&2
}

# Part 3, one measurement: SIDE with MODE (watchex|subscribe) in shape number IDX.
measure_watch_memory() {
  local side=$1 mode=$2 idx=$3 label conns keys layout name m0 m1 m2 m3 pairs count
  IFS='|' read -r label conns keys layout <<<"${MEMORY_SHAPES[idx]}"
  name="mem-$side-$idx"
  pairs=$((conns * keys))
  bench_log "memory: $side ($mode), $label"
  m0=$(used_memory "$side")
  hold_start "$name" "$side" --mode "$mode" --conns "$conns" --keys "$keys" --layout "$layout" \
    --prefix "mem$idx:"
  sleep 0.5
  m1=$(used_memory "$side")
  hold_register "$name" "$side"
  sleep 0.5
  m2=$(used_memory "$side")
  if [[ $mode == watchex ]]; then
    count=$(watch_count "$side")
    [[ $count == "$pairs" ]] ||
      die "$side reports $count watches in CLIENT LIST (wx=), expected $pairs"
  fi
  hold_release
  sleep 0.5
  m3=$(used_memory "$side")
  require_alive "$side" "the memory measurement"
  MEM["$side,$idx"]="$m0 $m1 $m2 $m3 $pairs $(field "$(result_line "$WORK/$name.out" "$name")" \
    seconds)"
  bench_log "memory: $side: used_memory $m0 -> connected $m1 -> registered $m2 ->" \
    "released $m3"
}

run_memory() {
  local idx
  for idx in "${!MEMORY_SHAPES[@]}"; do
    measure_watch_memory ours watchex "$idx"
    measure_watch_memory redis subscribe "$idx"
  done
}

# Part 4, one redis-benchmark run of test IDX against SIDE; appends to IDLE_RPS and IDLE_CPU.
idle_benchmark() {
  local side=$1 idx=$2 label pipeline name requests
  IFS='|' read -r label pipeline name <<<"${IDLE_TESTS[idx]}"
  if ((pipeline > 1)); then requests=$IDLE_REQUESTS_PIPELINED; else requests=$IDLE_REQUESTS; fi
  redis_benchmark_run "$side" "$label" "$pipeline" "$name" "$requests"
  IDLE_RPS["$idx,$side"]+=" $RUN_RPS"
  [[ -n $RUN_US ]] && IDLE_CPU["$idx,$side"]+=" $RUN_US"
  STEP=$((STEP + 1))
  bench_log "$(printf '[%2d/%d] %-10s %-8s %10.0f rps  %s us/req' "$STEP" "$STEPS" "$label" \
    "$side" "$RUN_RPS" "${RUN_US:-n/a}")"
}

run_idle() {
  local round idx i count sides=(ours redis ourswx)
  bench_start ourswx "$OURS" || die "could not start a second instance of our server"
  bench_probe_cpu_source ourswx
  bench_log "idle: ourswx on port ${BENCH_PORT[ourswx]}: $IDLE_CONNS connections watch" \
    "$IDLE_KEYS keys each"
  hold_start idle ourswx --mode watchex --conns "$IDLE_CONNS" --keys "$IDLE_KEYS" \
    --layout shared --batch 1000 --prefix "idle:"
  hold_register idle ourswx
  count=$(watch_count ourswx)
  ((count == IDLE_CONNS * IDLE_KEYS)) ||
    die "ourswx reports $count watches, expected $((IDLE_CONNS * IDLE_KEYS))"
  IDLE_WATCHES=$count
  STEPS=$((${#IDLE_TESTS[@]} * ROUNDS * 3))
  STEP=0
  for ((round = 0; round < ROUNDS; round++)); do
    for idx in "${!IDLE_TESTS[@]}"; do
      # The order of the three servers rotates from round to round.
      for ((i = 0; i < 3; i++)); do
        idle_benchmark "${sides[(i + round) % 3]}" "$idx"
      done
    done
  done
  count=$(watch_count ourswx)
  ((count == IDLE_CONNS * IDLE_KEYS)) ||
    die "after the runs ourswx reports $count watches, expected $((IDLE_CONNS * IDLE_KEYS))"
  hold_release
}

# Prints "p99 ratio" and verdict helpers for part 1.
report_fanout() {
  local watchers line name mech o_p99 r_p99 r verdict
  echo "## 1. Fan-out latency (one key, writer alternates SET/DEL, $FANOUT_PAUSE_US us pause)"
  echo
  echo "Latency per (change, watcher) pair, from just before the writer sends to the watcher's"
  echo "read of the notification; targets interleaved change by change. With W watchers one"
  echo "late change moves W samples, so the smaller fan-out gets more changes (pairs = changes"
  echo "x W)."
  echo
  echo "| watchers | server | mechanism | changes | pairs | p50 us | p90 us | p99 us | max us |" \
    "lost | disorder | unexpected | writer reply p50 us | p99 / Redis p99 | goal | result |"
  echo "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"
  for watchers in "${FANOUT_WATCHERS[@]}"; do
    r_p99=$(field "$(result_line "$WORK/fanout-$watchers.out" redis)" p99_us)
    for name in ours ours-resp2 redis; do
      line=$(result_line "$WORK/fanout-$watchers.out" "$name")
      case $name in
        ours) mech="WATCHEX, RESP3 push" ;;
        ours-resp2) mech="WATCHEX, RESP2 in-band" ;;
        redis) mech="SUBSCRIBE keyspace (KEA)" ;;
      esac
      o_p99=$(field "$line" p99_us)
      if [[ $name == redis ]]; then
        r="" verdict="reference"
      else
        r=$(ratio "$o_p99" "$r_p99")
        if [[ $r == n/a ]]; then
          verdict="**no figure**"
        elif awk -v a="$o_p99" -v b="$r_p99" 'BEGIN { exit !(a <= b) }'; then
          verdict=ok
        else
          verdict="**above** ($(awk -v a="$o_p99" -v b="$r_p99" \
            'BEGIN { printf "+%.1f%%", (a / b - 1) * 100 }'))"
        fi
      fi
      if [[ $(field "$line" lost)$(field "$line" disorder)$(field "$line" unexpected) != 000 ]]
      then
        verdict="$verdict, **notifications lost or misordered**"
      fi
      echo "| $watchers | ${name%-resp2} | $mech | $(field "$line" changes) | $(field "$line" n) |" \
        "$(field "$line" p50_us) |" \
        "$(field "$line" p90_us) | $o_p99 | $(field "$line" max_us) | $(field "$line" lost) |" \
        "$(field "$line" disorder) | $(field "$line" unexpected) |" \
        "$(field "$line" write_p50_us) | ${r:-} |" \
        "$([[ $name == redis ]] || echo 'p99 <= Redis') |" \
        "$verdict |"
    done
  done
  echo
  echo "One thread reads all watcher sockets in turn, so the figures include the sweep over W"
  echo "sockets; it is the same for every server. \`lost\`: notifications that never came (late"
  echo "ones count until a 2 s drain after the last change); \`disorder\`: a notification of the"
  echo "wrong kind for its position (lost or reordered); \`unexpected\`: a frame that fits no change."
  echo
}

report_handoff() {
  local name line method verdict p99 close ping_line redis_line ours_p50 redis_p50
  echo "## 2. Lock hand-off after the holder's connection dies"
  echo
  echo "From just before the holder's close() (no release) to the waiter holding the lock;"
  echo "ours: $HANDOFF_RUNS runs per row, rows interleaved run by run."
  echo
  echo "| server | method | holder close | runs | p50 us | p90 us | p99 us | max us |" \
    "failures | goal | result |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|"
  for name in settp-watchex-rst bsettp-rst settp-watchex-fin bsettp-fin; do
    line=$(result_line "$WORK/handoff-ours.out" "$name")
    if [[ $name == bsettp* ]]; then
      method="BSETTP (the blocked waiter is handed the key)"
    else
      method="SETTP + WATCHEX (SETTP again on the DEL push)"
    fi
    if [[ $(field "$line" close) == rst ]]; then close="reset (SO_LINGER 0)"; else close=FIN; fi
    p99=$(field "$line" p99_us)
    if [[ -n $p99 && $(field "$line" failures) == 0 ]] &&
      awk -v p="$p99" 'BEGIN { exit !(p < 1000) }'; then
      verdict=ok
    else
      verdict="**missed**"
    fi
    echo "| ours | $method | $close | $(field "$line" runs) | $(field "$line" p50_us) |" \
      "$(field "$line" p90_us) | $p99 | $(field "$line" max_us) | $(field "$line" failures) |" \
      "p99 < 1000 us | $verdict |"
  done
  ping_line=$(result_line "$WORK/handoff-ours.out" ping)
  echo "| ours | calibration: PING round trip on an open connection | - |" \
    "$(field "$ping_line" runs) | $(field "$ping_line" p50_us) | $(field "$ping_line" p90_us) |" \
    "$(field "$ping_line" p99_us) | $(field "$ping_line" max_us) |" \
    "$(field "$ping_line" failures) | | machine floor |"
  redis_line=$(result_line "$WORK/handoff-redis.out" redis)
  echo "| redis | SET NX PX $HANDOFF_TTL_MS + keyspace events (SET NX again on expired/del) |" \
    "reset (SO_LINGER 0) | $(field "$redis_line" runs) | $(field "$redis_line" p50_us) |" \
    "$(field "$redis_line" p90_us) | $(field "$redis_line" p99_us) |" \
    "$(field "$redis_line" max_us) | $(field "$redis_line" failures) | reference |" \
    "freed only by the TTL |"
  echo
  ours_p50=$(field "$(result_line "$WORK/handoff-ours.out" bsettp-rst)" p50_us)
  redis_p50=$(field "$redis_line" p50_us)
  echo "A crashed Redis holder keeps the lock for the rest of its TTL: p50 $(fmt '%.0f' \
    "$(awk -v v="$redis_p50" 'BEGIN { if (v != "") print v / 1000 }')") ms with PX" \
    "$HANDOFF_TTL_MS, $(fmt '%.0f' "$(ratio "$redis_p50" "$ours_p50")") times ours with BSETTP."
  echo "The PING row shows what the machine itself adds: a p99 in milliseconds there means the"
  echo "tails above come from scheduling on a busy machine, not from the hand-off."
  echo
}

report_memory() {
  local idx label side m0 m1 m2 m3 pairs seconds per verdict mech
  echo "## 3. Memory per watch (used_memory, 1,000,000 (connection, key) pairs)"
  echo
  echo "| server | mechanism | shape | pairs | register s | used_memory before conns |" \
    "after conns (1 PING each) | after registering | B per pair | after release - before |" \
    "goal | result |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|"
  for idx in "${!MEMORY_SHAPES[@]}"; do
    IFS='|' read -r label _ <<<"${MEMORY_SHAPES[idx]}"
    for side in ours redis; do
      read -r m0 m1 m2 m3 pairs seconds <<<"${MEM["$side,$idx"]}"
      per=$(awk -v a="$m1" -v b="$m2" -v n="$pairs" 'BEGIN { printf "%.1f", (b - a) / n }')
      if [[ $side == ours ]]; then
        mech=WATCHEX
        verdict="**over**"
        if awk -v p="$per" 'BEGIN { exit !(p <= 100) }'; then verdict=ok; fi
        echo "| ours | $mech | $label | $pairs | $seconds | $m0 | $m1 | $m2 | $per |" \
          "$((m3 - m0)) | <= 100 B | $verdict |"
      else
        echo "| redis | SUBSCRIBE __keyspace@0__:key | $label | $pairs | $seconds | $m0 | $m1 |" \
          "$m2 | $per | $((m3 - m0)) | reference | |"
      fi
    done
  done
  echo
  echo "B per pair = (after registering - after conns) / pairs; the connections' own buffers are"
  echo "in the baseline. Ours is checked to report exactly that many watches (CLIENT LIST wx=)."
  echo "\"after release - before\": memory still held once every watch and connection is gone"
  echo "(index capacity kept for reuse, or a leak if it grows from run to run)."
  echo
}

report_idle() {
  local idx label pipeline o r w co cr cw drop cpu_change verdict requests
  echo "## 4. Cost when unused (redis-benchmark -c $BENCH_CLIENTS -r $BENCH_KEYSPACE," \
    "median of $ROUNDS rounds)"
  echo
  echo "\"ours+watches\" is a second instance of ours with $IDLE_KEYS other keys watched by" \
    "$IDLE_CONNS idle connections ($IDLE_WATCHES watches, none ever fires)."
  echo
  echo "| test | requests | ours rps | redis rps | ours/redis | ours+watches rps |" \
    "drop vs ours | goal | result | CPU us/req ours | ours+watches | redis |" \
    "CPU/req ours+watches vs ours |"
  echo "|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|"
  for idx in "${!IDLE_TESTS[@]}"; do
    IFS='|' read -r label pipeline _ <<<"${IDLE_TESTS[idx]}"
    if ((pipeline > 1)); then requests=$IDLE_REQUESTS_PIPELINED; else requests=$IDLE_REQUESTS; fi
    # shellcheck disable=SC2086  # the tables hold space-separated lists
    o=$(median ${IDLE_RPS["$idx,ours"]:-})
    # shellcheck disable=SC2086
    r=$(median ${IDLE_RPS["$idx,redis"]:-})
    # shellcheck disable=SC2086
    w=$(median ${IDLE_RPS["$idx,ourswx"]:-})
    # shellcheck disable=SC2086
    co=$(median ${IDLE_CPU["$idx,ours"]:-})
    # shellcheck disable=SC2086
    cr=$(median ${IDLE_CPU["$idx,redis"]:-})
    # shellcheck disable=SC2086
    cw=$(median ${IDLE_CPU["$idx,ourswx"]:-})
    drop=$(awk -v a="$o" -v b="$w" 'BEGIN { if (a + 0 > 0) printf "%.1f%%", (1 - b / a) * 100 }')
    cpu_change=$(awk -v a="$co" -v b="$cw" \
      'BEGIN { if (a + 0 > 0 && b != "") printf "%+.1f%%", (b / a - 1) * 100 }')
    if awk -v a="$o" -v b="$w" 'BEGIN { exit !(a + 0 > 0 && b / a >= 0.95) }'; then
      verdict=ok
    else
      verdict="**over**"
    fi
    echo "| $label | $requests | $(fmt '%.0f' "$o") | $(fmt '%.0f' "$r") | $(ratio "$o" "$r") |" \
      "$(fmt '%.0f' "$w") | ${drop:-n/a} | drop <= 5% | $verdict | $(fmt '%.2f' "$co") |" \
      "$(fmt '%.2f' "$cw") | $(fmt '%.2f' "$cr") | ${cpu_change:-n/a} |"
  done
  echo
  echo "A negative drop means the instance with watches was faster (noise). CPU is the server's"
  echo "user+system time per request (ours: ${BENCH_CPU_SOURCE[ours]:-?}, redis:" \
    "${BENCH_CPU_SOURCE[redis]:-?}); on a shared machine it is steadier than requests/s."
  echo
  echo "Every round, requests/s (ours | redis | ours+watches):"
  echo
  for idx in "${!IDLE_TESTS[@]}"; do
    IFS='|' read -r label _ <<<"${IDLE_TESTS[idx]}"
    echo "- $label:${IDLE_RPS["$idx,ours"]:-} |${IDLE_RPS["$idx,redis"]:-} |" \
      "${IDLE_RPS["$idx,ourswx"]:-}"
  done
  echo
}

# EXIT trap: ends the hold tool if one is running, stops every server, removes scratch files.
cleanup() {
  set +e
  if [[ -n ${HOLD_PID:-} ]] && kill -0 "$HOLD_PID" 2>/dev/null; then
    kill -TERM "$HOLD_PID" 2>/dev/null
    wait "$HOLD_PID" 2>/dev/null
  fi
  bench_stop_all
  [[ -n ${WORK:-} ]] && rm -rf -- "$WORK"
}

main() {
  local redis=/usr/bin/redis-server quick=0 rounds="" only="fanout,handoff,memory,idle"
  local command_line part started start_s load_avg stamp report_file version_o version_r
  command_line=$(printf '%q ' "$0" "$@")
  declare -gA MEM=() IDLE_RPS=() IDLE_CPU=() FANOUT_CHANGES=()
  OURS="$ROOT/src/redis-server"
  while (($# > 0)); do
    case $1 in
      --ours) need_value "$1" "${2-}" '.'; OURS=$2; shift ;;
      --redis) need_value "$1" "${2-}" '.'; redis=$2; shift ;;
      --rounds) need_value "$1" "${2-}" '^[1-9][0-9]?$'; rounds=$2; shift ;;
      --only)
        need_value "$1" "${2-}" "^$PARTS_RE(,$PARTS_RE)*\$"
        only=$2; shift ;;
      --quick) quick=1 ;;
      -h | --help) usage 0 ;;
      *) bench_log "bench-coordination: unknown argument '$1'"; usage ;;
    esac
    shift
  done
  if ((quick)); then
    FANOUT_CHANGES=([100]=200 [1000]=40) ROUNDS=${rounds:-2}
    HANDOFF_RUNS=50 REDIS_HANDOFF_RUNS=3
    IDLE_REQUESTS=50000 IDLE_REQUESTS_PIPELINED=300000
  else
    FANOUT_CHANGES=([100]=1000 [1000]=200) ROUNDS=${rounds:-5}
    HANDOFF_RUNS=200 REDIS_HANDOFF_RUNS=10
    IDLE_REQUESTS=100000 IDLE_REQUESTS_PIPELINED=1000000
  fi
  for tool in redis-cli redis-benchmark timeout awk g++ mkfifo; do
    command -v "$tool" >/dev/null || die "'$tool' not found"
  done
  # The servers start in scratch directories, so relative paths would break.
  [[ $OURS == /* ]] || OURS="$PWD/$OURS"
  [[ $redis == /* ]] || redis="$PWD/$redis"
  [[ -x $redis ]] || die "Debian's redis-server is not at '$redis'"
  [[ -x $OURS ]] || die "our server '$OURS' is missing or not executable; build it first"

  HOLD_PID="" HOLD_FD="" IDLE_WATCHES=0
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-coordination.XXXXXX")
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  start_s=$(date +%s)
  started=$(date '+%Y-%m-%d %H:%M:%S %Z')
  stamp=$(date '+%Y%m%d-%H%M%S')
  load_avg=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

  build_tool
  raise_fd_limit
  bench_start ours "$OURS" || die "could not start our server '$OURS'"
  bench_start redis "$redis" || die "could not start Redis '$redis'"
  bench_probe_cpu_source ours
  bench_probe_cpu_source redis
  version_o=$(bench_info_field ours server redis_version)
  version_r=$(bench_info_field redis server redis_version)
  bench_log "bench-coordination: ours on port ${BENCH_PORT[ours]}, redis on port" \
    "${BENCH_PORT[redis]}, open-file limit $(ulimit -Sn)"

  for part in fanout handoff memory idle; do
    if [[ ,$only, == *",$part,"* ]]; then "run_$part"; fi
  done
  local elapsed=$(($(date +%s) - start_s))

  mkdir -p "$ROOT/utils/bench-results"
  report_file="$ROOT/utils/bench-results/coordination-$stamp.md"
  {
    echo "# Temporary keys and existence watches: redis-tp vs Redis 7.0"
    echo
    echo "- date: $started; the run took ${elapsed} s"
    echo "- command: \`${command_line% }\`"
    echo "- ours: \`$OURS\` (redis_version ${version_o:-unknown})"
    echo "- redis: \`$redis\` (redis_version ${version_r:-unknown})"
    echo "- machine: $(nproc) cores, load average at start $load_avg; loopback only"
    echo "- figures are for comparison within this run (ratios), not absolute capacity"
    echo
    for part in fanout handoff memory idle; do
      if [[ ,$only, == *",$part,"* ]]; then "report_$part"; fi
    done
  } | tee "$report_file"
  bench_log "bench-coordination: report saved to $report_file (run took ${elapsed} s)"
}

main "$@"
