#!/usr/bin/env bash
# Benchmarks of Lua scripting (EVALSHA and the script cache), side by side with Debian's Redis 7.0.
#
# Usage: utils/bench-scripting.sh [--ours PATH] [--redis PATH] [--quick] [--rounds N]
#                                 [--requests N] [--only LIST]
#   --ours PATH     server under test (default: src/redis-server in this repository)
#   --redis PATH    reference server (default: /usr/bin/redis-server)
#   --quick         a shorter run (fewer requests and rounds) to check that all works
#   --rounds N      runs per side and test in part 1; the median is reported (default 5, quick 2)
#   --requests N    requests per -P 1 run; -P 16 runs carry 10 times more (default 100000)
#   --only LIST     comma-separated parts to run: evalsha,load (default: both)
#
# Method. Both servers run at once on free loopback ports (utils/bench/servers.sh: no config
# file, no persistence).
#  1. EVALSHA throughput: redis-benchmark (-c 50, keys drawn from -r 100000) sends EVALSHA of a
#     script loaded beforehand, at pipeline depths 1 and 16, for two scripts:
#     - the Redlock page's compare-and-delete release. Its keys lock:<12 digits> are filled
#       with a token first and the benchmark passes another token, so every call is the path
#       a late or duplicate release takes: GET of an existing key, a comparison, integer 0 (the
#       DEL branch would empty the keyspace within one pass);
#     - a 10-call script on KEYS[1]: SET, four rounds of INCR and GET, a last GET: ten
#       redis.call per EVALSHA.
#     Before the runs each script's reply is checked on both servers against the expected one,
#     and around every run INFO's total_error_replies must not move: redis-benchmark counts an
#     error reply as a request served, so a script failing fast would otherwise look fast.
#     Runs alternate between the servers, the order rotating from round to round, so the shared
#     machine's load lands on both alike; medians of the rounds. CPU microseconds per call come
#     from the server's INFO cpu sampled around each run.
#  2. Script cache memory: both servers restarted empty, then SCRIPT LOAD of 10,000 distinct
#     scripts (about 110 bytes each, sent with redis-cli --pipe, every reply checked). Reported:
#     the growth of used_memory, of used_memory_lua (the Lua heap, apart from used_memory in
#     Redis) and of the process's RSS, with used_memory_scripts (the cache's own accounting)
#     and number_of_cached_scripts before and after. The goal is judged on RSS, the one figure
#     that means the same on both servers whatever each counts in used_memory.
#
# The report is markdown on stdout, also saved as utils/bench-results/scripting-<time>.md;
# progress goes to stderr. Goals (issue 10): EVALSHA >= 1.0x Redis; cache memory <= Redis.
# Missing a goal is reported, not an error. Exit status: 0 when every part ran, 1 when a server
# died or a step failed, 2 on bad usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-scripting
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"

readonly CLIENTS=50
readonly KEYSPACE=100000
readonly LOAD_SCRIPTS=10000
readonly PARTS_RE='(evalsha|load)'

# The Redlock page's release, byte for byte as the page prints it (used through ${!var}).
# shellcheck disable=SC2034
readonly RELEASE_SCRIPT='if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end'

# Ten redis.call on one key; replies the last GET, which is "4" whatever the key held.
# shellcheck disable=SC2034
readonly TEN_CALL_SCRIPT="redis.call('SET', KEYS[1], '0')
redis.call('INCR', KEYS[1])
redis.call('GET', KEYS[1])
redis.call('INCR', KEYS[1])
redis.call('GET', KEYS[1])
redis.call('INCR', KEYS[1])
redis.call('GET', KEYS[1])
redis.call('INCR', KEYS[1])
redis.call('GET', KEYS[1])
return redis.call('GET', KEYS[1])"

# Part 1, one test per line: label | pipeline depth | script variable | key prefix | argument |
# expected reply of the check call.
readonly EVAL_TESTS=(
  "release (compare-and-delete) -P 1|1|RELEASE_SCRIPT|lock:|not-the-owner|0"
  "release (compare-and-delete) -P 16|16|RELEASE_SCRIPT|lock:|not-the-owner|0"
  "10 x redis.call -P 1|1|TEN_CALL_SCRIPT|ten:|-|4"
  "10 x redis.call -P 16|16|TEN_CALL_SCRIPT|ten:|-|4"
)

usage() { bench_usage 4 11 "${1:-2}"; }

# Prints INFO stats' total_error_replies, or nothing when the server does not report it.
error_replies() {
  bench_info_field "$1" stats total_error_replies
}

# Fills lock:000000000000 .. lock:<KEYSPACE-1> with the owner's token, through redis-cli --pipe.
fill_lock_keys() {
  local side=$1 out
  out=$(awk -v n="$KEYSPACE" 'BEGIN {
      for (i = 0; i < n; i++) {
        k = sprintf("lock:%012d", i)
        printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$11\r\nowner-token\r\n", length(k), k
      }
    }' | timeout "$BENCH_CLI_TIMEOUT" redis-cli -h 127.0.0.1 -p "${BENCH_PORT[$side]}" --pipe \
    2>&1) || die "filling the lock keys on '$side' failed: $out"
  [[ $out == *"errors: 0, replies: $KEYSPACE"* ]] ||
    die "filling the lock keys on '$side' did not get $KEYSPACE clean replies: $out"
}

# Loads the part 1 scripts on SIDE, checks each one's reply, and records the SHA1s (which must
# be the same on both servers: a SHA1 is a property of the text).
prepare_evalsha() {
  local side=$1 idx label pipeline var prefix arg expected sha reply
  fill_lock_keys "$side"
  for idx in "${!EVAL_TESTS[@]}"; do
    IFS='|' read -r label pipeline var prefix arg expected <<<"${EVAL_TESTS[idx]}"
    sha=$(bench_cli "$side" script load "${!var}")
    [[ $sha =~ ^[0-9a-f]{40}$ ]] || die "SCRIPT LOAD of $var on '$side' replied '$sha'"
    if [[ -n ${SHA[$var]:-} && ${SHA[$var]} != "$sha" ]]; then
      die "SCRIPT LOAD of $var: '$side' says $sha, the other server ${SHA[$var]}"
    fi
    SHA[$var]=$sha
    reply=$(bench_cli "$side" evalsha "$sha" 1 "${prefix}000000000007" "$arg")
    [[ $reply == "$expected" ]] ||
      die "EVALSHA of $var on '$side' replied '$reply', expected '$expected'"
  done
}

# One redis-benchmark run of test IDX against SIDE; sets RUN_RPS and RUN_US (CPU us per call).
evalsha_run() {
  local side=$1 idx=$2 label pipeline var prefix arg requests cpu0 cpu1 err0 err1 out rc=0
  IFS='|' read -r label pipeline var prefix arg _ <<<"${EVAL_TESTS[idx]}"
  requests=$REQUESTS
  ((pipeline > 1)) && requests=$((REQUESTS * 10))
  err0=$(error_replies "$side")
  cpu0=$(bench_cpu_seconds "$side")
  out=$(timeout $((60 + requests / 2000)) redis-benchmark -h 127.0.0.1 \
    -p "${BENCH_PORT[$side]}" -c "$CLIENTS" -P "$pipeline" -r "$KEYSPACE" -n "$requests" \
    --csv evalsha "${SHA[$var]}" 1 "${prefix}__rand_int__" "$arg" 2>"$WORK/benchmark.err") ||
    rc=$?
  require_alive "$side" "redis-benchmark $label"
  cpu1=$(bench_cpu_seconds "$side")
  err1=$(error_replies "$side")
  RUN_RPS=$(awk -F, '{ gsub(/"/, "") } $1 != "test" && $2 + 0 > 0 { print $2; exit }' <<<"$out")
  if ((rc != 0)) || [[ -z $RUN_RPS ]]; then
    cat "$WORK/benchmark.err" >&2
    die "redis-benchmark '$label' against '$side' failed (exit $rc): ${out:-no output}"
  fi
  if [[ -n $err0 && -n $err1 && $err0 != "$err1" ]]; then
    die "'$side' sent $((err1 - err0)) error replies during '$label': the script failed"
  fi
  RUN_US=""
  if [[ -n $cpu0 && -n $cpu1 ]]; then
    RUN_US=$(awk -v a="$cpu0" -v b="$cpu1" -v n="$requests" \
      'BEGIN { printf "%.3f", (b - a) * 1e6 / n }')
  fi
}

# Part 1: every test, ROUNDS times, the servers' order rotating.
run_evalsha() {
  local round idx i side sides=(ours redis) step=0 steps
  prepare_evalsha ours
  prepare_evalsha redis
  steps=$((${#EVAL_TESTS[@]} * ROUNDS * 2))
  for ((round = 0; round < ROUNDS; round++)); do
    for idx in "${!EVAL_TESTS[@]}"; do
      for ((i = 0; i < 2; i++)); do
        side=${sides[(i + round) % 2]}
        evalsha_run "$side" "$idx"
        EVAL_RPS["$idx,$side"]+=" $RUN_RPS"
        [[ -n $RUN_US ]] && EVAL_CPU["$idx,$side"]+=" $RUN_US"
        step=$((step + 1))
        bench_log "$(printf 'evalsha [%2d/%d] %-36s %-6s %10.0f calls/s  %s us/call' "$step" \
          "$steps" "${EVAL_TESTS[idx]%%|*}" "$side" "$RUN_RPS" "${RUN_US:-n/a}")"
      done
    done
  done
}

# Prints the figures part 2 reports, as "used scripts lua cached rss" (INFO memory's
# used_memory, used_memory_scripts, used_memory_lua, number_of_cached_scripts, and the process's
# resident set in bytes from /proc), n/a for any the server or the system does not report.
memory_sample() {
  local side=$1 info rss_kb
  info=$(bench_cli "$side" info memory 2>/dev/null)
  rss_kb=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/${BENCH_PID[$side]}/status" 2>/dev/null)
  awk -F: -v rss_kb="$rss_kb" '{ v[$1] = $2 }
    END {
      printf "%s %s %s %s %s\n", ("used_memory" in v) ? v["used_memory"] : "n/a",
        ("used_memory_scripts" in v) ? v["used_memory_scripts"] : "n/a",
        ("used_memory_lua" in v) ? v["used_memory_lua"] : "n/a",
        ("number_of_cached_scripts" in v) ? v["number_of_cached_scripts"] : "n/a",
        (rss_kb != "") ? rss_kb * 1024 : "n/a"
    }' <<<"$info"
}

# Part 2 on one side: a fresh server, then LOAD_SCRIPTS distinct SCRIPT LOADs.
measure_load() {
  local side=$1 bin=$2 out before after
  bench_stop "$side"
  bench_start "$side" "$bin" || die "could not restart '$side' ($bin)"
  before=$(memory_sample "$side")
  out=$(timeout "$BENCH_CLI_TIMEOUT" redis-cli -h 127.0.0.1 -p "${BENCH_PORT[$side]}" --pipe \
    <"$WORK/load.resp" 2>&1) || die "SCRIPT LOAD of $LOAD_SCRIPTS scripts on '$side' failed: $out"
  [[ $out == *"errors: 0, replies: $LOAD_SCRIPTS"* ]] ||
    die "SCRIPT LOAD on '$side' did not get $LOAD_SCRIPTS clean replies: $out"
  require_alive "$side" "SCRIPT LOAD of $LOAD_SCRIPTS scripts"
  after=$(memory_sample "$side")
  LOAD_MEM[$side]="$before $after"
  bench_log "load: $side: used_memory scripts lua cached: $before -> $after"
}

run_load() {
  # Distinct texts of the shape clients send (a guarded read and delete), ~110 bytes each.
  awk -v n="$LOAD_SCRIPTS" 'BEGIN {
      for (i = 0; i < n; i++) {
        s = sprintf("local v = redis.call(\"GET\", KEYS[1]) if v == ARGV[1] then " \
          "return redis.call(\"DEL\", KEYS[1]) end return %d", i)
        printf "*3\r\n$6\r\nSCRIPT\r\n$4\r\nLOAD\r\n$%d\r\n%s\r\n", length(s), s
      }
    }' >"$WORK/load.resp"
  measure_load ours "$OURS"
  measure_load redis "$REDIS"
}

# Prints "ok" or "**below**"/"**above**" for a ratio against a goal; $3 is ge or le.
verdict() {
  local value=$1 goal=$2 sense=$3
  if [[ $value == n/a || -z $value ]]; then
    echo "**no figure**"
  elif awk -v v="$value" -v g="$goal" -v s="$sense" \
    'BEGIN { exit !((s == "ge" && v >= g) || (s == "le" && v <= g)) }'; then
    echo ok
  elif [[ $sense == ge ]]; then
    echo "**below**"
  else
    echo "**above**"
  fi
}

report_evalsha() {
  local idx label pipeline o r co cr ratio_v requests
  echo "## 1. EVALSHA throughput (redis-benchmark -c $CLIENTS -r $KEYSPACE, median of $ROUNDS" \
    "rounds)"
  echo
  echo "| script | requests | ours calls/s | redis calls/s | ours/redis | goal | result |" \
    "CPU us/call ours | redis | CPU ours/redis |"
  echo "|---|---:|---:|---:|---:|---|---|---:|---:|---:|"
  for idx in "${!EVAL_TESTS[@]}"; do
    IFS='|' read -r label pipeline _ <<<"${EVAL_TESTS[idx]}"
    requests=$REQUESTS
    ((pipeline > 1)) && requests=$((REQUESTS * 10))
    # shellcheck disable=SC2086  # the tables hold space-separated lists
    o=$(median ${EVAL_RPS["$idx,ours"]:-})
    # shellcheck disable=SC2086
    r=$(median ${EVAL_RPS["$idx,redis"]:-})
    # shellcheck disable=SC2086
    co=$(median ${EVAL_CPU["$idx,ours"]:-})
    # shellcheck disable=SC2086
    cr=$(median ${EVAL_CPU["$idx,redis"]:-})
    ratio_v=$(ratio "$o" "$r")
    echo "| $label | $requests | $(fmt '%.0f' "$o") | $(fmt '%.0f' "$r") | $ratio_v | >= 1.0 |" \
      "$(verdict "$ratio_v" 1.0 ge) | $(fmt '%.2f' "$co") | $(fmt '%.2f' "$cr") |" \
      "$(ratio "$co" "$cr") |"
  done
  echo
  echo "The release runs on keys holding another token (GET, compare, reply 0); the 10-call"
  echo "script runs SET, 4 x (INCR, GET) and GET on a random key. Every reply was checked once"
  echo "on both servers, and no run produced an error reply. CPU: the server's user+system time"
  echo "per call, steadier than rates on a shared machine. Every round (calls/s, ours | redis):"
  echo
  for idx in "${!EVAL_TESTS[@]}"; do
    echo "- ${EVAL_TESTS[idx]%%|*}:${EVAL_RPS["$idx,ours"]:-} |${EVAL_RPS["$idx,redis"]:-}"
  done
  echo
}

# Prints B - A when both are integers, else nothing.
difference() {
  awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/) print b - a }'
}

report_load() {
  local side r fig label o rd goal
  local b_used b_scripts b_lua b_cached b_rss a_used a_scripts a_lua a_cached a_rss
  local -A growth=() scripts=() cached=()
  for side in ours redis; do
    read -r b_used b_scripts b_lua b_cached b_rss a_used a_scripts a_lua a_cached a_rss \
      <<<"${LOAD_MEM[$side]}"
    growth[used,$side]=$(difference "$b_used" "$a_used")
    growth[lua,$side]=$(difference "$b_lua" "$a_lua")
    growth[rss,$side]=$(difference "$b_rss" "$a_rss")
    scripts[$side]="$b_scripts -> $a_scripts"
    cached[$side]="$b_cached -> $a_cached"
  done
  echo "## 2. Script cache memory (SCRIPT LOAD of $LOAD_SCRIPTS distinct scripts, fresh servers)"
  echo
  echo "| growth after the loads | ours bytes | redis bytes | ours B/script | redis B/script |" \
    "ours/redis | goal | result |"
  echo "|---|---:|---:|---:|---:|---:|---|---|"
  for fig in used lua rss; do
    case $fig in
      used) label="used_memory" goal="" ;;
      lua) label="used_memory_lua (the Lua heap)" goal="" ;;
      rss) label="process RSS" goal="<= Redis" ;;
    esac
    o=${growth[$fig,ours]} rd=${growth[$fig,redis]}
    r=$(ratio "$o" "$rd")
    echo "| $label | $(fmt '%.0f' "$o") | $(fmt '%.0f' "$rd") | $(per_script "$o") |" \
      "$(per_script "$rd") | $r | $goal | $([[ -n $goal ]] && verdict "$r" 1.0 le) |"
  done
  echo
  echo "| figure, before -> after | ours | redis |"
  echo "|---|---|---|"
  echo "| used_memory_scripts | ${scripts[ours]} | ${scripts[redis]} |"
  echo "| number_of_cached_scripts | ${cached[ours]} | ${cached[redis]} |"
  echo
  echo "Redis's used_memory counts the cache (script texts and the dictionary) but not the Lua"
  echo "heap, which holds the compiled functions and is reported apart as used_memory_lua (Lua's"
  echo "allocations bypass the wrapper through which Redis counts memory). A server that measures"
  echo "used_memory from its allocator's statistics counts the Lua heap in it too, so the two"
  echo "rows do not compare like for like across servers; the goal is judged on RSS growth, which"
  echo "covers everything each process holds (page-granular, so rough to a few pages)."
  echo
}

# Prints bytes per loaded script, or n/a.
per_script() {
  if [[ -z ${1:-} ]]; then echo n/a; else awk -v g="$1" -v n="$LOAD_SCRIPTS" \
    'BEGIN { printf "%.0f", g / n }'; fi
}

# EXIT trap: stops every server and removes scratch files.
cleanup() {
  set +e
  bench_stop_all
  [[ -n ${WORK:-} ]] && rm -rf -- "$WORK"
}

main() {
  local rounds="" requests="" only="evalsha,load" parts="" part command_line started start_s
  local load_avg stamp report_file version_o version_r
  command_line=$(printf '%q ' "$0" "$@")
  declare -gA EVAL_RPS=() EVAL_CPU=() SHA=() LOAD_MEM=()
  OURS="$ROOT/src/redis-server" REDIS=/usr/bin/redis-server QUICK=0
  while (($# > 0)); do
    case $1 in
      --ours) need_value "$1" "${2-}" '.'; OURS=$2; shift ;;
      --redis) need_value "$1" "${2-}" '.'; REDIS=$2; shift ;;
      --rounds) need_value "$1" "${2-}" '^[1-9][0-9]?$'; rounds=$2; shift ;;
      --requests) need_value "$1" "${2-}" '^[1-9][0-9]{2,7}$'; requests=$2; shift ;;
      --only)
        need_value "$1" "${2-}" "^$PARTS_RE(,$PARTS_RE)*\$"
        only=$2; shift ;;
      --quick) QUICK=1 ;;
      -h | --help) usage 0 ;;
      *) bench_log "bench-scripting: unknown argument '$1'"; usage ;;
    esac
    shift
  done
  if ((QUICK)); then
    ROUNDS=${rounds:-2} REQUESTS=${requests:-20000}
  else
    ROUNDS=${rounds:-5} REQUESTS=${requests:-100000}
  fi
  for tool in redis-cli redis-benchmark timeout awk; do
    command -v "$tool" >/dev/null || die "'$tool' not found"
  done
  # The servers start in scratch directories, so relative paths would break.
  [[ $OURS == /* ]] || OURS="$PWD/$OURS"
  [[ $REDIS == /* ]] || REDIS="$PWD/$REDIS"
  [[ -x $REDIS ]] || die "Debian's redis-server is not at '$REDIS'"
  [[ -x $OURS ]] || die "our server '$OURS' is missing or not executable; build it first"
  for part in evalsha load; do
    [[ ,$only, == *",$part,"* ]] && parts+=" $part"
  done

  WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-scripting.XXXXXX")
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
  bench_log "bench-scripting: ours on port ${BENCH_PORT[ours]}, redis on ${BENCH_PORT[redis]}," \
    "parts:$parts"

  for part in $parts; do "run_$part"; done
  local elapsed=$(($(date +%s) - start_s))

  mkdir -p "$ROOT/utils/bench-results"
  report_file="$ROOT/utils/bench-results/scripting-$stamp.md"
  {
    echo "# Lua scripting: redis-tp vs Redis 7.0"
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
  bench_log "bench-scripting: report saved to $report_file (run took ${elapsed} s)"
}

main "$@"
