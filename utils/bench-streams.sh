#!/usr/bin/env bash
# Benchmarks of streams, side by side with Debian's Redis 7.0.
#
# Usage: utils/bench-streams.sh [--ours PATH] [--redis PATH] [--quick] [--rounds N]
#                               [--requests N] [--entries N] [--only LIST]
#   --ours PATH     server under test (default: src/redis-server in this repository)
#   --redis PATH    reference server (default: /usr/bin/redis-server)
#   --quick         a shorter run (fewer requests, rounds and entries) to check that all works
#   --rounds N      runs per side and test; the median is reported (default 3, quick 1)
#   --requests N    requests per -P 1 run; -P 16 runs carry 10 times more (default 100000)
#   --entries N     stream entries of each memory workload (default 1000000, quick 100000)
#   --only LIST     comma-separated parts to run: throughput,memory (default: both)
#
# Method. Both servers run at once on free loopback ports (utils/bench/servers.sh: no config
# file, no persistence, default stream-node-max-entries/-bytes).
#  1. Throughput: redis-benchmark (-c 50) sends one command over and over, at pipeline depths 1
#     and 16:
#     - XADD mystream * f v: the key deleted before each run, so every run grows one stream from
#       nothing;
#     - XREADGROUP GROUP g c COUNT 1 STREAMS mystream >: before each run the stream is filled
#       (redis-cli --pipe, before the CPU sample) with one entry per request plus a margin and
#       the group created at 0, so every call delivers one new entry and records it pending;
#     - XRANGE mystream - + COUNT 10 on a stream of 1000 entries.
#     Each command's reply is checked once on both servers first, and INFO's
#     total_error_replies must not move during a run (redis-benchmark counts an error reply as a
#     request served). A side that does not know a command yet (redis-tp while streams are being
#     written) is reported as such and the other side still measured. Runs alternate between the
#     servers, the order rotating from round to round, so the shared machine's load lands on
#     both alike; medians of the rounds. CPU microseconds per request come from the server's
#     INFO cpu (or /proc) sampled around each run, a figure machine noise disturbs less.
#  2. Memory per entry: each side restarted empty, then --entries XADD * of one stream through
#     redis-cli --pipe (every reply checked, XLEN checked), for two workloads: one field and a
#     small value per entry (f <i mod 1000>), and five fields (f1..f5, the same values). The
#     growth of used_memory and of the process RSS, divided by the entries, is the figure.
#
# The report is markdown on stdout, also saved as utils/bench-results/streams-<time>.md;
# progress goes to stderr. Exit status: 0 when every part ran (sides lacking a command are
# reported, not an error), 1 when a server died or a step failed, 2 on bad usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-streams
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"

readonly CLIENTS=50
readonly XRANGE_ENTRIES=1000
readonly PARTS_RE='(throughput|memory)'

# Part 1, one test per line: label | pipeline depth | state before each run | command.
# The state is "del" (mystream deleted), "group" (mystream filled with one entry per request
# and the margin, group g created at 0) or "range" (mystream filled with XRANGE_ENTRIES).
readonly TESTS=(
  "XADD * -P 1|1|del|XADD mystream * f v"
  "XADD * -P 16|16|del|XADD mystream * f v"
  "XREADGROUP > COUNT 1 -P 1|1|group|XREADGROUP GROUP g c COUNT 1 STREAMS mystream >"
  "XREADGROUP > COUNT 1 -P 16|16|group|XREADGROUP GROUP g c COUNT 1 STREAMS mystream >"
  "XRANGE - + COUNT 10 -P 1|1|range|XRANGE mystream - + COUNT 10"
  "XRANGE - + COUNT 10 -P 16|16|range|XRANGE mystream - + COUNT 10"
)

# Part 2, one workload per line: label | fields per entry.
readonly MEMORY_TESTS=(
  "1 field, small value|1"
  "5 fields, small values|5"
)

usage() { bench_usage 4 13 "${1:-2}"; }

# Prints INFO stats' total_error_replies, or nothing when the server does not report it.
error_replies() {
  bench_info_field "$1" stats total_error_replies
}

# Requests of one run of a test at pipeline depth $1.
requests_for() {
  if (($1 > 1)); then echo $((REQUESTS * 10)); else echo "$REQUESTS"; fi
}

# Writes to stdout the RESP of N "XADD mystream * <fields>" commands, F fields per entry, the
# values i mod 1000 (the same bytes for both servers).
xadd_resp() {
  local n=$1 fields=$2
  awk -v n="$n" -v nf="$fields" 'BEGIN {
      for (i = 0; i < n; i++) {
        v = sprintf("%d", i % 1000)
        printf "*%d\r\n$4\r\nXADD\r\n$8\r\nmystream\r\n$1\r\n*\r\n", 3 + 2 * nf
        for (j = 1; j <= nf; j++) {
          f = (nf == 1) ? "f" : "f" j
          printf "$%d\r\n%s\r\n$%d\r\n%s\r\n", length(f), f, length(v), v
        }
      }
    }'
}

# Sends the RESP file $2 to SIDE with redis-cli --pipe and requires $3 clean replies.
pipe_file() {
  local side=$1 file=$2 want=$3 out
  out=$(timeout $((BENCH_CLI_TIMEOUT + want / 2000)) redis-cli -h 127.0.0.1 \
    -p "${BENCH_PORT[$side]}" --pipe <"$file" 2>&1) ||
    die "redis-cli --pipe of $file to '$side' failed: $out"
  [[ $out == *"errors: 0, replies: $want"* ]] ||
    die "redis-cli --pipe of $file to '$side' did not get $want clean replies: $out"
}

# Succeeds when XADD works on SIDE (redis-tp gets streams in stages).
side_has_xadd() {
  local side=$1 r
  r=$(bench_cli "$side" xadd bench:probe '*' f v 2>&1)
  bench_cli "$side" del bench:probe >/dev/null
  [[ $r =~ ^[0-9]+-[0-9]+$ ]]
}

# Puts mystream on SIDE into the state test IDX starts from.
prepare_state() {
  local side=$1 idx=$2 label pipeline state requests n
  IFS='|' read -r label pipeline state _ <<<"${TESTS[idx]}"
  bench_cli "$side" del mystream >/dev/null
  case $state in
    del) ;;
    group)
      requests=$(requests_for "$pipeline")
      n=$((requests + 1000))
      [[ -f $WORK/fill-$n.resp ]] || xadd_resp "$n" 1 >"$WORK/fill-$n.resp"
      pipe_file "$side" "$WORK/fill-$n.resp" "$n"
      [[ $(bench_cli "$side" xgroup create mystream g 0) == OK ]] ||
        die "XGROUP CREATE on '$side' failed"
      ;;
    range)
      [[ -f $WORK/range.resp ]] || xadd_resp "$XRANGE_ENTRIES" 1 >"$WORK/range.resp"
      pipe_file "$side" "$WORK/range.resp" "$XRANGE_ENTRIES"
      ;;
  esac
}

# Checks once that test IDX's command answers as expected on SIDE (from its starting state).
# Returns 1 when SIDE does not know a command the test needs (reported, not an error); stops
# the run on any other unexpected reply.
check_reply() {
  local side=$1 idx=$2 label state cmd reply words
  IFS='|' read -r label _ state cmd <<<"${TESTS[idx]}"
  side_has_xadd "$side" || return 1
  if [[ $state == group ]]; then
    bench_cli "$side" del mystream >/dev/null
    reply=$(bench_cli "$side" xgroup create mystream g 0 mkstream 2>&1)
    [[ $reply == *"unknown command"* ]] && return 1
  fi
  prepare_state "$side" "$idx"
  # read -a splits the command into words without expanding the `*` as a glob.
  read -ra words <<<"$cmd"
  reply=$(bench_cli "$side" "${words[@]}" 2>&1 | tr '\n' ' ')
  [[ $reply == *"unknown command"* ]] && return 1
  case $label in
    XADD*) [[ $reply =~ ^[0-9]+-[0-9]+\ $ ]] ;;
    XREADGROUP*) [[ $reply =~ ^mystream\ [0-9]+-[0-9]+\ f\ 0\ $ ]] ;;
    XRANGE*) [[ $(wc -w <<<"$reply") == 30 ]] ;;
  esac || die "'$label' on '$side' replied '$reply'"
}

# One redis-benchmark run of test IDX against SIDE; sets RUN_RPS and RUN_US (CPU us/request).
bench_run() {
  local side=$1 idx=$2 label pipeline cmd requests cpu0 cpu1 err0 err1 out rc=0 words
  IFS='|' read -r label pipeline _ cmd <<<"${TESTS[idx]}"
  read -ra words <<<"$cmd"
  requests=$(requests_for "$pipeline")
  prepare_state "$side" "$idx"
  err0=$(error_replies "$side")
  cpu0=$(bench_cpu_seconds "$side")
  out=$(timeout $((60 + requests / 2000)) redis-benchmark -h 127.0.0.1 \
    -p "${BENCH_PORT[$side]}" -c "$CLIENTS" -P "$pipeline" -n "$requests" --csv \
    "${words[@]}" 2>"$WORK/benchmark.err") || rc=$?
  require_alive "$side" "redis-benchmark $label"
  cpu1=$(bench_cpu_seconds "$side")
  err1=$(error_replies "$side")
  RUN_RPS=$(awk -F, '{ gsub(/"/, "") } $1 != "test" && $2 + 0 > 0 { print $2; exit }' <<<"$out")
  if ((rc != 0)) || [[ -z $RUN_RPS ]]; then
    cat "$WORK/benchmark.err" >&2
    die "redis-benchmark '$label' against '$side' failed (exit $rc): ${out:-no output}"
  fi
  if [[ -n $err0 && -n $err1 && $err0 != "$err1" ]]; then
    die "'$side' sent $((err1 - err0)) error replies during '$label'"
  fi
  RUN_US=""
  if [[ -n $cpu0 && -n $cpu1 ]]; then
    RUN_US=$(awk -v a="$cpu0" -v b="$cpu1" -v n="$requests" \
      'BEGIN { printf "%.3f", (b - a) * 1e6 / n }')
  fi
}

# Part 1: every test, ROUNDS times, the servers' order rotating; a test is skipped on a side
# that lacks its commands.
run_throughput() {
  local round idx i side step=0
  for idx in "${!TESTS[@]}"; do
    for side in ours redis; do
      if ! check_reply "$side" "$idx"; then
        MISSING["$idx,$side"]=1
        bench_log "throughput: '$side' cannot run '${TESTS[idx]%%|*}' yet; skipped"
      fi
    done
  done
  for ((round = 0; round < ROUNDS; round++)); do
    for idx in "${!TESTS[@]}"; do
      for ((i = 0; i < 2; i++)); do
        side=$( ((i == round % 2)) && echo ours || echo redis)
        [[ -n ${MISSING["$idx,$side"]:-} ]] && continue
        bench_run "$side" "$idx"
        RPS["$idx,$side"]+=" $RUN_RPS"
        [[ -n $RUN_US ]] && CPU["$idx,$side"]+=" $RUN_US"
        step=$((step + 1))
        bench_log "$(printf 'throughput [%2d] %-28s %-6s %10.0f req/s  %s us/req' "$step" \
          "${TESTS[idx]%%|*}" "$side" "$RUN_RPS" "${RUN_US:-n/a}")"
      done
    done
  done
}

# Prints "used_memory rss_bytes" of SIDE (n/a for what is not reported).
memory_sample() {
  local side=$1 used rss_kb
  used=$(bench_info_field "$side" memory used_memory)
  rss_kb=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/${BENCH_PID[$side]}/status" 2>/dev/null)
  echo "${used:-n/a} $([[ -n $rss_kb ]] && echo $((rss_kb * 1024)) || echo n/a)"
}

# Part 2 on one side and workload: a fresh server, ENTRIES XADDs, the growth recorded.
measure_memory() {
  local side=$1 bin=$2 idx=$3 label fields before after len enc
  IFS='|' read -r label fields <<<"${MEMORY_TESTS[idx]}"
  bench_stop "$side"
  bench_start "$side" "$bin" || die "could not restart '$side' ($bin)"
  bench_probe_cpu_source "$side"
  if ! side_has_xadd "$side"; then
    bench_log "memory: '$side' cannot run XADD yet; skipped"
    return 0
  fi
  [[ -f $WORK/mem-$fields.resp ]] || xadd_resp "$ENTRIES" "$fields" >"$WORK/mem-$fields.resp"
  before=$(memory_sample "$side")
  pipe_file "$side" "$WORK/mem-$fields.resp" "$ENTRIES"
  require_alive "$side" "loading $ENTRIES entries"
  after=$(memory_sample "$side")
  len=$(bench_cli "$side" xlen mystream)
  [[ $len == "$ENTRIES" ]] || die "XLEN on '$side' is '$len' after $ENTRIES XADDs"
  enc=$(bench_cli "$side" object encoding mystream)
  MEM["$idx,$side"]="$before $after $enc"
  bench_log "memory: $side: $label: used_memory rss: $before -> $after"
}

run_memory() {
  local idx
  for idx in "${!MEMORY_TESTS[@]}"; do
    measure_memory ours "$OURS" "$idx"
    measure_memory redis "$REDIS" "$idx"
  done
}

report_throughput() {
  local idx label pipeline o r co cr side
  echo "## 1. Throughput (redis-benchmark -c $CLIENTS, median of $ROUNDS rounds)"
  echo
  for idx in "${!TESTS[@]}"; do
    for side in ours redis; do
      [[ -n ${MISSING["$idx,$side"]:-} ]] &&
        echo "- **$side does not run ${TESTS[idx]%%|*} yet** (unknown command)"
    done
  done
  echo
  echo "| test | requests | ours req/s | redis req/s | ours/redis | CPU us/req ours | redis |" \
    "CPU ours/redis |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for idx in "${!TESTS[@]}"; do
    IFS='|' read -r label pipeline _ <<<"${TESTS[idx]}"
    # shellcheck disable=SC2086  # the tables hold space-separated lists
    o=$(median ${RPS["$idx,ours"]:-})
    # shellcheck disable=SC2086
    r=$(median ${RPS["$idx,redis"]:-})
    # shellcheck disable=SC2086
    co=$(median ${CPU["$idx,ours"]:-})
    # shellcheck disable=SC2086
    cr=$(median ${CPU["$idx,redis"]:-})
    echo "| $label | $(requests_for "$pipeline") | $(fmt '%.0f' "$o") | $(fmt '%.0f' "$r") |" \
      "$(ratio "$o" "$r") | $(fmt '%.2f' "$co") | $(fmt '%.2f' "$cr") | $(ratio "$co" "$cr") |"
  done
  echo
  echo "XREADGROUP runs deliver one new entry per call to one consumer (the PEL grows); XRANGE"
  echo "reads the first 10 of $XRANGE_ENTRIES entries. Every round (req/s, ours | redis):"
  echo
  for idx in "${!TESTS[@]}"; do
    echo "- ${TESTS[idx]%%|*}:${RPS["$idx,ours"]:-} |${RPS["$idx,redis"]:-}"
  done
  echo
}

# Prints (B - A) / ENTRIES to one decimal when both are integers, else n/a.
per_entry() {
  awk -v a="$1" -v b="$2" -v n="$ENTRIES" \
    'BEGIN { if (a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/) printf "%.1f", (b - a) / n; else print "n/a" }'
}

report_memory() {
  local idx label side b_used b_rss a_used a_rss enc
  local -A used=() rss=() encs=()
  echo "## 2. Memory per entry ($ENTRIES entries in one stream, fresh servers)"
  echo
  echo "| workload | used_memory B/entry ours | redis | ours/redis | RSS B/entry ours | redis |" \
    "ours/redis | encoding ours / redis |"
  echo "|---|---:|---:|---:|---:|---:|---:|---|"
  for idx in "${!MEMORY_TESTS[@]}"; do
    label=${MEMORY_TESTS[idx]%%|*}
    for side in ours redis; do
      used[$side]=n/a rss[$side]=n/a encs[$side]=n/a
      [[ -n ${MEM["$idx,$side"]:-} ]] || continue
      read -r b_used b_rss a_used a_rss enc <<<"${MEM["$idx,$side"]}"
      used[$side]=$(per_entry "$b_used" "$a_used")
      rss[$side]=$(per_entry "$b_rss" "$a_rss")
      encs[$side]=$enc
    done
    echo "| $label | ${used[ours]} | ${used[redis]} | $(ratio "${used[ours]/n\/a/}" \
      "${used[redis]/n\/a/}") | ${rss[ours]} | ${rss[redis]} | $(ratio "${rss[ours]/n\/a/}" \
      "${rss[redis]/n\/a/}") | ${encs[ours]} / ${encs[redis]} |"
  done
  echo
  echo "Entries are XADD mystream * with the field names f (or f1..f5) and the values i mod 1000,"
  echo "the same bytes on both servers. RSS is page-granular and includes allocator slack."
  echo
}

# EXIT trap: stops every server and removes scratch files.
cleanup() {
  set +e
  bench_stop_all
  [[ -n ${WORK:-} ]] && rm -rf -- "$WORK"
}

main() {
  local rounds="" requests="" entries="" only="throughput,memory" parts="" part command_line
  local started start_s load_avg stamp report_file version_o version_r tool
  command_line=$(printf '%q ' "$0" "$@")
  declare -gA RPS=() CPU=() MEM=() MISSING=()
  OURS="$ROOT/src/redis-server" REDIS=/usr/bin/redis-server QUICK=0
  while (($# > 0)); do
    case $1 in
      --ours) need_value "$1" "${2-}" '.'; OURS=$2; shift ;;
      --redis) need_value "$1" "${2-}" '.'; REDIS=$2; shift ;;
      --rounds) need_value "$1" "${2-}" '^[1-9][0-9]?$'; rounds=$2; shift ;;
      --requests) need_value "$1" "${2-}" '^[1-9][0-9]{2,7}$'; requests=$2; shift ;;
      --entries) need_value "$1" "${2-}" '^[1-9][0-9]{2,7}$'; entries=$2; shift ;;
      --only)
        need_value "$1" "${2-}" "^$PARTS_RE(,$PARTS_RE)*\$"
        only=$2; shift ;;
      --quick) QUICK=1 ;;
      -h | --help) usage 0 ;;
      *) bench_log "bench-streams: unknown argument '$1'"; usage ;;
    esac
    shift
  done
  if ((QUICK)); then
    ROUNDS=${rounds:-1} REQUESTS=${requests:-20000} ENTRIES=${entries:-100000}
  else
    ROUNDS=${rounds:-3} REQUESTS=${requests:-100000} ENTRIES=${entries:-1000000}
  fi
  for tool in redis-cli redis-benchmark timeout awk; do
    command -v "$tool" >/dev/null || die "'$tool' not found"
  done
  [[ $OURS == /* ]] || OURS="$PWD/$OURS"
  [[ $REDIS == /* ]] || REDIS="$PWD/$REDIS"
  [[ -x $REDIS ]] || die "Debian's redis-server is not at '$REDIS'"
  [[ -x $OURS ]] || die "our server '$OURS' is missing or not executable; build it first"
  for part in throughput memory; do
    [[ ,$only, == *",$part,"* ]] && parts+=" $part"
  done

  WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-streams.XXXXXX")
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  start_s=$(date +%s)
  started=$(date '+%Y-%m-%d %H:%M:%S %Z')
  stamp=$(date '+%Y%m%d-%H%M%S')
  load_avg=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

  bench_start ours "$OURS" || die "could not start our server '$OURS'"
  bench_probe_cpu_source ours
  bench_start redis "$REDIS" || die "could not start Redis '$REDIS'"
  bench_probe_cpu_source redis
  version_o=$(bench_info_field ours server redis_version)
  version_r=$(bench_info_field redis server redis_version)
  bench_log "bench-streams: ours on port ${BENCH_PORT[ours]}, redis on ${BENCH_PORT[redis]}," \
    "parts:$parts"

  for part in $parts; do "run_$part"; done
  local elapsed=$(($(date +%s) - start_s))

  mkdir -p "$ROOT/utils/bench-results"
  report_file="$ROOT/utils/bench-results/streams-$stamp.md"
  {
    echo "# Streams: redis-tp vs Redis 7.0"
    echo
    echo "- date: $started; the run took ${elapsed} s"
    echo "- command: \`${command_line% }\`"
    echo "- ours: \`$OURS\` (redis_version ${version_o:-unknown})"
    echo "- redis: \`$REDIS\` (redis_version ${version_r:-unknown})"
    echo "- machine: $(nproc) cores, load average at start $load_avg; loopback only"
    echo "- figures are for comparison within this run (ratios), not absolute capacity"
    echo
    for part in $parts; do "report_$part"; done
  } | tee "$report_file"
  bench_log "bench-streams: report saved to $report_file (run took ${elapsed} s)"
}

main "$@"
