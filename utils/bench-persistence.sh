#!/usr/bin/env bash
# Persistence benchmarks (RDB save and load, SET throughput with the AOF), side by side with
# Debian's Redis 7.0.
#
# Usage: utils/bench-persistence.sh [--ours PATH] [--redis PATH] [--quick] [--keys N]
#                                   [--rounds N] [--requests N] [--only LIST]
#   --ours PATH     server under test (default: src/redis-server in this repository)
#   --redis PATH    reference server (default: /usr/bin/redis-server)
#   --quick         a short run (100k keys, 1 round, fewer requests): under 2 minutes
#   --keys N        keys of the RDB workloads (default 1000000, quick 100000)
#   --rounds N      runs per side and figure; the median is reported (default 3, quick 1)
#   --requests N    SET requests per -P 1 run without fsync always (default 100000, quick
#                   20000); -P 16 runs carry 5 times more, appendfsync always runs 5 times less
#   --only LIST     comma-separated parts to run: rdb,aof (default: both)
#
# Method. Every server is started by this script on a free loopback port, in a scratch
# directory of its own, without a config file; the runs alternate between the two servers, the
# order swapping from round to round, so the shared machine's load lands on both alike.
#  1. rdb: two workloads of --keys N: "strings" (DEBUG POPULATE N) and "hashes" (N/10 hashes of
#     10 fields, sent through redis-cli --pipe, every reply checked). On a fresh server with
#     the workload loaded:
#     - SAVE: the wall time of the command, and the size of dump.rdb;
#     - BGSAVE: the time from sending it until INFO says rdb_bgsave_in_progress:0, the child
#       process is gone and dump.rdb was replaced (a new inode), polled back to back (a poll
#       forks a few tools: tens of ms; rdb_last_bgsave_time_sec is whole seconds), then
#       rdb_last_bgsave_status:ok checked; meanwhile
#       the parent's VmRSS and the child's Private_Dirty (its copy-on-write pages plus what it
#       allocates itself, /proc/PID/smaps_rollup) are sampled, the peaks reported, with
#       INFO's rdb_last_cow_size when the server reports it; once more after the load below,
#       while redis-benchmark -t set -r N -c 10 -P 16 writes (new keys), which makes the
#       child's Private_Dirty the copy-on-write cost;
#     - load: the server is stopped and started again on the directory; the time from exec to
#       the first PONG (a LOADING error does not count), DBSIZE checked, and the "DB loaded
#       from disk: X seconds" figure of its log when it prints one.
#  2. aof: redis-benchmark -t set -c 50 at -P 1 and -P 16 on a fresh server per run, with
#     appendonly no (the baseline), and appendonly yes at appendfsync everysec and always.
#     With appendonly yes a side must report aof_enabled:1 and leave at least 30 bytes per
#     request in its directory; a side that does not (redis-tp before its AOF is built) is
#     reported as "AOF not built" and not measured. INFO's total_error_replies must not move
#     during a run (redis-benchmark counts error replies as served).
#
# The report is markdown on stdout, also saved as utils/bench-results/persistence-<time>.md;
# progress goes to stderr. Exit status: 0 when every part ran (a side lacking the AOF is
# reported, not an error), 1 when a server died or a step failed, 2 on bad usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-persistence
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"

readonly CLIENTS=50
readonly PARTS_RE='(rdb|aof)'
# Upper bounds of the waits, in seconds: a server starting (and loading its data), one BGSAVE.
readonly START_TIMEOUT=300
readonly BGSAVE_TIMEOUT=600
readonly WORKLOADS=(strings hashes)
# One AOF configuration per line: label | server arguments.
readonly AOF_CONFIGS=(
  "appendonly no|--appendonly no"
  "appendonly yes, appendfsync everysec|--appendonly yes --appendfsync everysec"
  "appendonly yes, appendfsync always|--appendonly yes --appendfsync always"
)
readonly PIPELINES=(1 16)

usage() { bench_usage 5 15 "${1:-2}"; }

# Microseconds since the epoch, without a fork.
now_us() {
  echo "${EPOCHREALTIME/./}"
}

# Prints field F (kB) of /proc/PID/FILE ("VmRSS", "Private_Dirty"...), or nothing.
proc_kb() {
  awk -v f="$3:" '$1 == f { print $2; exit }' "/proc/$1/$2" 2>/dev/null || true
}

# Prints the pid of a child process of PID that is still running (not a zombie), or nothing.
live_child() {
  local c
  for c in $(pgrep -P "$1" 2>/dev/null); do
    [[ $(sed 's/.*) //' "/proc/$c/stat" 2>/dev/null | cut -d' ' -f1) == [RSDT] ]] &&
      echo "$c" && return 0
  done
  return 0
}

# The server binary of a side.
side_bin() {
  if [[ $1 == ours ]]; then echo "$OURS"; else echo "$REDIS"; fi
}

# The two sides in the order of round R.
side_order() {
  if (($1 % 2 == 0)); then echo "ours redis"; else echo "redis ours"; fi
}

# Starts SIDE in directory DIR (kept, with its files, until the caller removes it) with extra
# server arguments, and waits until it answers PING with PONG: a server loading its data
# answers LOADING, which does not count. Sets START_US to the time from exec to that PONG.
# Usage: pb_start SIDE DIR ARG...
pb_start() {
  local side=$1 dir=$2 attempt port pid t0 reply waited
  shift 2
  BENCH_DIR[$side]=$dir
  BENCH_BIN[$side]=$(side_bin "$side")
  for ((attempt = 1; attempt <= 5; attempt++)); do
    port=$(bench_free_port) || return 1
    BENCH_PORT[$side]=$port
    t0=$(now_us)
    (cd "$dir" && exec "${BENCH_BIN[$side]}" --port "$port" --bind 127.0.0.1 --dir "$dir" \
      --save "" --enable-debug-command yes "$@") >>"$dir/server.log" 2>&1 &
    pid=$!
    BENCH_PID[$side]=$pid
    for ((waited = 0; waited < START_TIMEOUT * 100; waited++)); do
      bench_alive "$side" || break
      reply=$(timeout 2 redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | tr -d '\r') || true
      if [[ $reply == PONG ]]; then
        START_US=$(($(now_us) - t0))
        [[ $(bench_info_field "$side" server process_id) == "$pid" ]] && return 0
        bench_log "bench-persistence: port $port answered for someone else than pid $pid"
        break
      fi
      sleep 0.01
    done
    if bench_alive "$side"; then
      bench_log "bench-persistence: '$side' did not answer PONG within $START_TIMEOUT s"
      pb_stop "$side"
      return 1
    fi
    grep -qi 'address already in use' "$dir/server.log" 2>/dev/null || {
      bench_report_death "$side"
      return 1
    }
  done
  return 1
}

# Stops SIDE (SIGTERM, 10 s of grace, then SIGKILL); its directory stays.
pb_stop() {
  local pid=${BENCH_PID[$1]:-} i
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  BENCH_PID[$1]=""
}

# Writes to stdout the RESP of N "HSET h:<i> f0 <i> ... f9 <i>" commands.
hashes_resp() {
  awk -v n="$1" 'BEGIN {
      for (i = 0; i < n; i++) {
        k = "h:" i; v = i ""
        printf "*22\r\n$4\r\nHSET\r\n$%d\r\n%s\r\n", length(k), k
        for (j = 0; j < 10; j++) printf "$2\r\nf%d\r\n$%d\r\n%s\r\n", j, length(v), v
      }
    }'
}

# Loads WORKLOAD into SIDE and checks DBSIZE; prints the expected DBSIZE.
fill_workload() {
  local side=$1 workload=$2 want out
  case $workload in
    strings)
      want=$KEYS
      [[ $(bench_cli "$side" debug populate "$KEYS") == OK ]] ||
        die "DEBUG POPULATE $KEYS failed on '$side'"
      ;;
    hashes)
      want=$((KEYS / 10))
      [[ -f $WORK/hashes.resp ]] || hashes_resp "$want" >"$WORK/hashes.resp"
      out=$(timeout $((BENCH_CLI_TIMEOUT + want / 1000)) redis-cli -h 127.0.0.1 \
        -p "${BENCH_PORT[$side]}" --pipe <"$WORK/hashes.resp" 2>&1) ||
        die "redis-cli --pipe of the hashes to '$side' failed: $out"
      [[ $out == *"errors: 0, replies: $want"* ]] ||
        die "redis-cli --pipe of the hashes to '$side' did not get $want clean replies: $out"
      ;;
  esac
  [[ $(bench_cli "$side" dbsize) == "$want" ]] || die "DBSIZE on '$side' is not $want"
  echo "$want"
}

# Records figure NAME of workload/config KEY for SIDE (a list, one value per round).
record() {
  FIG["$1,$2,$3"]+=" $4"
}

# One BGSAVE on SIDE over FILE (its dump.rdb, which must exist), timed and sampled; records
# bgsave_ms, rss_growth_kb, child_dirty_kb and cow_kb (when reported) under KEY. With WRITES
# set, redis-benchmark sends SETs of random keys (-r KEYS, -c 10 -P 16) from before the BGSAVE
# until it is done, and sets_served records the commands served meanwhile.
timed_bgsave() {
  local side=$1 key=$2 file=$3 writes=${4:-0} pid=${BENCH_PID[$1]} inode0 inode1 rss0 rss
  local rss_peak child dirty dirty_peak=0 t0 t1 reply in_progress="" polls status cow cmds0 cmds1
  inode0=$(stat -c %i "$file")
  if ((writes)); then
    redis-benchmark -h 127.0.0.1 -p "${BENCH_PORT[$side]}" -c 10 -P 16 -n 2000000000 \
      -r "$KEYS" -t set -q >/dev/null 2>&1 &
    WRITER_PID=$!
    sleep 0.3
    kill -0 "$WRITER_PID" 2>/dev/null || die "the SET writer against '$side' did not start"
  fi
  cmds0=$(bench_info_field "$side" stats total_commands_processed)
  rss0=$(proc_kb "$pid" status VmRSS)
  rss_peak=$rss0
  t0=$(now_us)
  reply=$(bench_cli "$side" bgsave)
  [[ $reply == "Background saving started" ]] || die "BGSAVE on '$side' replied '$reply'"
  # Done when the server says so, its child is gone and the file was replaced: the first alone
  # is what Redis clients see; the others keep the figure honest on a server whose INFO does
  # not follow its child yet.
  for ((polls = 0; polls < BGSAVE_TIMEOUT * 100; polls++)); do
    in_progress=$(bench_info_field "$side" persistence rdb_bgsave_in_progress)
    child=$(live_child "$pid")
    inode1=$(stat -c %i "$file" 2>/dev/null) || true
    [[ $in_progress == 0 && -z $child && -n $inode1 && $inode1 != "$inode0" ]] && break
    rss=$(proc_kb "$pid" status VmRSS)
    ((${rss:-0} > rss_peak)) && rss_peak=$rss
    if [[ -n $child ]]; then
      dirty=$(proc_kb "$child" smaps_rollup Private_Dirty)
      ((${dirty:-0} > dirty_peak)) && dirty_peak=$dirty
    fi
    sleep 0.01
  done
  t1=$(now_us)
  cmds1=$(bench_info_field "$side" stats total_commands_processed)
  if ((writes)); then
    kill "$WRITER_PID" 2>/dev/null || true
    wait "$WRITER_PID" 2>/dev/null || true
    WRITER_PID=""
    record "$side" "$key" sets_served "$((cmds1 - cmds0))"
  fi
  require_alive "$side" "BGSAVE"
  ((polls < BGSAVE_TIMEOUT * 100)) ||
    die "BGSAVE on '$side' not done after $BGSAVE_TIMEOUT s (in progress '$in_progress'," \
      "child '$child', dump.rdb inode $inode0 -> ${inode1:-none})"
  status=$(bench_info_field "$side" persistence rdb_last_bgsave_status)
  [[ $status == ok ]] || die "BGSAVE on '$side' ended with rdb_last_bgsave_status '$status'"
  cow=$(bench_info_field "$side" persistence rdb_last_cow_size)
  record "$side" "$key" bgsave_ms "$(((t1 - t0) / 1000))"
  record "$side" "$key" rss_growth_kb "$((rss_peak - rss0))"
  record "$side" "$key" child_dirty_kb "$dirty_peak"
  [[ -n $cow && $cow != 0 ]] && record "$side" "$key" cow_kb "$((cow / 1024))"
  return 0
}

# Part 1 on one side, workload and round.
measure_rdb() {
  local side=$1 workload=$2 dir want t0 t1 reply size logged
  dir="$WORK/$side-rdb-$workload"
  rm -rf -- "$dir"
  mkdir -p "$dir"
  pb_start "$side" "$dir" --appendonly no || die "could not start '$side'"
  want=$(fill_workload "$side" "$workload")
  record "$side" "$workload" used_kb $(($(bench_info_field "$side" memory used_memory) / 1024))
  t0=$(now_us)
  reply=$(bench_cli "$side" save)
  t1=$(now_us)
  [[ $reply == OK ]] || die "SAVE on '$side' replied '$reply'"
  size=$(stat -c %s "$dir/dump.rdb")
  record "$side" "$workload" save_ms "$(((t1 - t0) / 1000))"
  record "$side" "$workload" rdb_kb "$((size / 1024))"
  timed_bgsave "$side" "$workload" "$dir/dump.rdb"
  pb_stop "$side"
  : >"$dir/server.log"
  pb_start "$side" "$dir" --appendonly no || die "'$side' did not start on its dump.rdb"
  record "$side" "$workload" load_ms "$((START_US / 1000))"
  [[ $(bench_cli "$side" dbsize) == "$want" ]] || die "'$side' loaded a DBSIZE other than $want"
  logged=$(grep -oE 'DB loaded from disk: [0-9.]+ seconds' "$dir/server.log" |
    grep -oE '[0-9.]+' | head -n 1) || true
  [[ -n $logged ]] && record "$side" "$workload" logged_load_ms \
    "$(awk -v s="$logged" 'BEGIN { printf "%.0f", s * 1000 }')"
  bench_log "rdb: $side $workload: SAVE $(((t1 - t0) / 1000)) ms, $((size / 1024)) kB," \
    "BGSAVE $(med "$side" "$workload" bgsave_ms) ms (median so far), load $((START_US / 1000)) ms"
  timed_bgsave "$side" "$workload-writes" "$dir/dump.rdb" 1
  bench_log "rdb: $side $workload: BGSAVE while writing" \
    "$(med "$side" "$workload-writes" bgsave_ms) ms (median so far)"
  pb_stop "$side"
  rm -rf -- "$dir"
}

run_rdb() {
  local round workload side
  for ((round = 0; round < ROUNDS; round++)); do
    for workload in "${WORKLOADS[@]}"; do
      for side in $(side_order "$round"); do
        measure_rdb "$side" "$workload"
      done
    done
  done
}

# Requests of one SET run at pipeline depth P under AOF config IDX.
requests_for() {
  local n=$REQUESTS
  (($1 > 1)) && n=$((n * 5))
  [[ ${AOF_CONFIGS[$2]} == *always* ]] && n=$((n / 5))
  echo "$n"
}

# One redis-benchmark SET run on a fresh SIDE with AOF config IDX at depth P; records rps
# under "IDX-P", or marks the side as lacking the AOF.
measure_aof() {
  local side=$1 idx=$2 p=$3 dir args n err0 err1 out rc=0 rps bytes
  local label=${AOF_CONFIGS[idx]%%|*}
  [[ -n ${NO_AOF[$side]:-} && $label == *yes* ]] && return 0
  read -ra args <<<"${AOF_CONFIGS[idx]#*|}"
  dir="$WORK/$side-aof"
  rm -rf -- "$dir"
  mkdir -p "$dir"
  pb_start "$side" "$dir" "${args[@]}" || die "could not start '$side' with ${args[*]}"
  if [[ $label == *yes* && $(bench_info_field "$side" persistence aof_enabled) != 1 ]]; then
    bench_log "aof: '$side' does not report aof_enabled:1: AOF not built; not measured"
    NO_AOF[$side]=1
    pb_stop "$side"
    return 0
  fi
  n=$(requests_for "$p" "$idx")
  err0=$(bench_info_field "$side" stats total_error_replies)
  out=$(timeout $((120 + n / 200)) redis-benchmark -h 127.0.0.1 -p "${BENCH_PORT[$side]}" \
    -c "$CLIENTS" -P "$p" -n "$n" -t set --csv 2>"$WORK/benchmark.err") || rc=$?
  require_alive "$side" "redis-benchmark SET ($label, -P $p)"
  err1=$(bench_info_field "$side" stats total_error_replies)
  rps=$(awk -F, '{ gsub(/"/, "") } $1 == "SET" { print $2; exit }' <<<"$out")
  if ((rc != 0)) || [[ -z $rps ]]; then
    cat "$WORK/benchmark.err" >&2
    die "redis-benchmark SET against '$side' failed (exit $rc): ${out:-no output}"
  fi
  [[ $err0 == "$err1" ]] || die "'$side' sent error replies during SET ($label, -P $p)"
  if [[ $label == *yes* ]]; then
    bytes=$(find "$dir" -type f ! -name server.log -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    if ((bytes < n * 30)); then
      bench_log "aof: '$side' left $bytes bytes for $n SETs with $label: AOF not built"
      NO_AOF[$side]=1
      pb_stop "$side"
      return 0
    fi
  fi
  record "$side" "$idx-$p" rps "$rps"
  bench_log "$(printf 'aof: %-5s %-38s -P %-2d %6d req %10.0f req/s' "$side" "$label" "$p" \
    "$n" "$rps")"
  pb_stop "$side"
  rm -rf -- "$dir"
}

run_aof() {
  local round idx p side
  for ((round = 0; round < ROUNDS; round++)); do
    for idx in "${!AOF_CONFIGS[@]}"; do
      for p in "${PIPELINES[@]}"; do
        for side in $(side_order "$round"); do
          measure_aof "$side" "$idx" "$p"
        done
      done
    done
  done
}

# Prints the median of figure NAME under KEY for SIDE (nothing when never recorded).
med() {
  # shellcheck disable=SC2086  # the table holds space-separated lists
  median ${FIG["$1,$2,$3"]:-}
}

# One table row: label, figure, KEY, printf format, divisor (kB -> MB etc.).
fig_row() {
  local label=$1 name=$2 key=$3 format=$4 div=$5 o r
  o=$(med ours "$key" "$name")
  r=$(med redis "$key" "$name")
  [[ -n $o ]] && o=$(awk -v v="$o" -v d="$div" 'BEGIN { print v / d }')
  [[ -n $r ]] && r=$(awk -v v="$r" -v d="$div" 'BEGIN { print v / d }')
  echo "| $label | $(fmt "$format" "$o") | $(fmt "$format" "$r") | $(ratio "$o" "$r") |"
}

report_rdb() {
  local workload title
  echo "## 1. RDB: save, background save, load (median of $ROUNDS rounds)"
  echo
  for workload in "${WORKLOADS[@]}"; do
    if [[ $workload == strings ]]; then
      title="strings: DEBUG POPULATE $KEYS"
    else
      title="hashes: $((KEYS / 10)) hashes of 10 fields"
    fi
    echo "### $title"
    echo
    echo "| figure | ours | redis | ours/redis |"
    echo "|---|---:|---:|---:|"
    fig_row "used_memory after the fill, MB" used_kb "$workload" '%.1f' 1024
    fig_row "SAVE, ms" save_ms "$workload" '%.0f' 1
    fig_row "dump.rdb size, MB" rdb_kb "$workload" '%.1f' 1024
    fig_row "BGSAVE until done, ms" bgsave_ms "$workload" '%.0f' 1
    fig_row "parent VmRSS growth during BGSAVE, MB" rss_growth_kb "$workload" '%.1f' 1024
    fig_row "child Private_Dirty peak, MB" child_dirty_kb "$workload" '%.1f' 1024
    fig_row "INFO rdb_last_cow_size, MB" cow_kb "$workload" '%.1f' 1024
    fig_row "startup on dump.rdb until PONG, ms" load_ms "$workload" '%.0f' 1
    fig_row "logged \"DB loaded from disk\", ms" logged_load_ms "$workload" '%.0f' 1
    fig_row "BGSAVE while SETs are sent, ms" bgsave_ms "$workload-writes" '%.0f' 1
    fig_row "commands served during that BGSAVE" sets_served "$workload-writes" '%.0f' 1
    fig_row "parent VmRSS growth during it, MB" rss_growth_kb "$workload-writes" '%.1f' 1024
    fig_row "child Private_Dirty peak during it, MB" child_dirty_kb "$workload-writes" '%.1f' \
      1024
    fig_row "INFO rdb_last_cow_size after it, MB" cow_kb "$workload-writes" '%.1f' 1024
    echo
  done
  echo "Nothing writes during the first BGSAVE, so the child's Private_Dirty is mostly its own"
  echo "allocations; during the second, redis-benchmark -t set -r $KEYS -c 10 -P 16 writes"
  echo "(new keys key:<12 digits>, after the load was timed), so it is the copy-on-write."
  echo "n/a: the server does not report the figure (rdb_last_cow_size 0)."
  echo
}

report_aof() {
  local idx p label o r
  echo "## 2. SET throughput with the AOF (redis-benchmark -t set -c $CLIENTS, median of" \
    "$ROUNDS rounds)"
  echo
  for side in ours redis; do
    [[ -n ${NO_AOF[$side]:-} ]] && echo "- **$side: AOF not built** (no aof_enabled:1 or no" \
      "file written with appendonly yes): its appendonly yes rows are n/a" && echo
  done
  echo "| configuration | -P | requests | ours req/s | redis req/s | ours/redis |"
  echo "|---|---:|---:|---:|---:|---:|"
  for idx in "${!AOF_CONFIGS[@]}"; do
    label=${AOF_CONFIGS[idx]%%|*}
    for p in "${PIPELINES[@]}"; do
      o=$(med ours "$idx-$p" rps)
      r=$(med redis "$idx-$p" rps)
      echo "| $label | $p | $(requests_for "$p" "$idx") | $(fmt '%.0f' "$o") |" \
        "$(fmt '%.0f' "$r") | $(ratio "$o" "$r") |"
    done
  done
  echo
}

# EXIT trap: stops every server and removes scratch files.
cleanup() {
  set +e
  local side
  [[ -n ${WRITER_PID:-} ]] && kill "$WRITER_PID" 2>/dev/null
  for side in ours redis; do pb_stop "$side"; done
  [[ -n ${WORK:-} ]] && rm -rf -- "$WORK"
}

main() {
  local rounds="" requests="" keys="" only="rdb,aof" parts="" part command_line tool
  local started start_s load_avg stamp report_file version_o version_r elapsed
  command_line=$(printf '%q ' "$0" "$@")
  declare -gA FIG=() NO_AOF=()
  OURS="$ROOT/src/redis-server" REDIS=/usr/bin/redis-server QUICK=0
  while (($# > 0)); do
    case $1 in
      --ours) need_value "$1" "${2-}" '.'; OURS=$2; shift ;;
      --redis) need_value "$1" "${2-}" '.'; REDIS=$2; shift ;;
      --rounds) need_value "$1" "${2-}" '^[1-9][0-9]?$'; rounds=$2; shift ;;
      --requests) need_value "$1" "${2-}" '^[1-9][0-9]{2,7}$'; requests=$2; shift ;;
      --keys) need_value "$1" "${2-}" '^[1-9][0-9]{2,7}$'; keys=$2; shift ;;
      --only)
        need_value "$1" "${2-}" "^$PARTS_RE(,$PARTS_RE)*\$"
        only=$2; shift ;;
      --quick) QUICK=1 ;;
      -h | --help) usage 0 ;;
      *) bench_log "bench-persistence: unknown argument '$1'"; usage ;;
    esac
    shift
  done
  if ((QUICK)); then
    ROUNDS=${rounds:-1} REQUESTS=${requests:-20000} KEYS=${keys:-100000}
  else
    ROUNDS=${rounds:-3} REQUESTS=${requests:-100000} KEYS=${keys:-1000000}
  fi
  for tool in redis-cli redis-benchmark timeout awk pgrep stat; do
    command -v "$tool" >/dev/null || die "'$tool' not found"
  done
  [[ $OURS == /* ]] || OURS="$PWD/$OURS"
  [[ $REDIS == /* ]] || REDIS="$PWD/$REDIS"
  [[ -x $REDIS ]] || die "Debian's redis-server is not at '$REDIS'"
  [[ -x $OURS ]] || die "our server '$OURS' is missing or not executable; build it first"
  for part in rdb aof; do
    [[ ,$only, == *",$part,"* ]] && parts+=" $part"
  done

  WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-persistence.XXXXXX")
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  start_s=$(date +%s)
  started=$(date '+%Y-%m-%d %H:%M:%S %Z')
  stamp=$(date '+%Y%m%d-%H%M%S')
  load_avg=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
  version_o=$("$OURS" --version | grep -oE 'v=[0-9.]+' | head -n 1) || true
  version_r=$("$REDIS" --version | grep -oE 'v=[0-9.]+' | head -n 1) || true
  bench_log "bench-persistence: parts:$parts, $KEYS keys, $ROUNDS round(s), work in $WORK"

  for part in $parts; do "run_$part"; done
  elapsed=$(($(date +%s) - start_s))

  mkdir -p "$ROOT/utils/bench-results"
  report_file="$ROOT/utils/bench-results/persistence-$stamp.md"
  {
    echo "# Persistence: redis-tp vs Redis 7.0"
    echo
    echo "- date: $started; the run took ${elapsed} s"
    echo "- command: \`${command_line% }\`"
    echo "- ours: \`$OURS\` (${version_o:-version unknown})"
    echo "- redis: \`$REDIS\` (${version_r:-version unknown})"
    echo "- machine: $(nproc) cores, load average at start $load_avg; loopback only;" \
      "scratch files in ${TMPDIR:-/tmp} ($(df -T "$WORK" | awk 'NR == 2 { print $2 }'))"
    echo "- figures are for comparison within this run (ratios), not absolute capacity"
    echo
    for part in $parts; do "report_$part"; done
  } | tee "$report_file"
  bench_log "bench-persistence: report saved to $report_file (run took ${elapsed} s)"
}

main "$@"
