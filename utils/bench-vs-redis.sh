#!/usr/bin/env bash
# Side-by-side benchmark of redis-tp against Debian's Redis 7.0.
#
# Usage: utils/bench-vs-redis.sh [--ours PATH] [--redis PATH] [--requests N] [--rounds N]
#                                [--quick] [--memory-only] [--no-memory] [--only REGEX]
#   --ours PATH     server under test (default: src/redis-server in this repository)
#   --redis PATH    reference server (default: /usr/bin/redis-server)
#   --requests N    requests per -P 1 run; the other runs scale from it (default 300000)
#   --rounds N      runs per side and test; the median is reported (default 3)
#   --quick         a few minutes: --requests 50000 unless given explicitly
#   --memory-only   only the memory test;  --no-memory   only the throughput tests
#   --only REGEX    only the throughput tests whose label matches (grep -E), e.g. 'LPUSH|ZADD'
#
# Method. Both servers run at once on free loopback ports with persistence off and no config
# file. Throughput comes from redis-benchmark (-c 50, random keys over -r 100000) for SET, GET,
# INCR and MSET at pipeline depths 1 and 16, and SET/GET with 1 KB values, and for the aggregate
# families LPUSH, RPUSH, LPOP, RPOP, SADD, SPOP, HSET, ZADD, ZPOPMIN, LRANGE 0 99 and LRANGE 0 599
# at both depths, and SET EX and GET of keys with a TTL at both depths (last, so the other rows
# read keys without one). Every run of an aggregate test starts from the same state: its key is
# deleted, and refilled with `redis-cli --pipe` when the test reads or pops it (a pop test gets
# as many elements as it has requests, so no request pops from an empty key; LRANGE gets a
# 600-element list), all before the CPU sample. LRANGE goes through redis-benchmark's
# custom-command form rather than `-t lrange_100`, whose own LPUSH prefill would land in the CPU
# figure. Runs alternate between the two servers (ours, redis, ours, redis, ...) so that whatever
# else the shared machine is doing lands on both sides alike, and each side's median over the
# rounds is compared. A -P 16 run carries more requests than a -P 1 run so that each lasts about
# as long.
# Around every run the server's own CPU time (INFO cpu, or /proc when INFO lacks it) is sampled,
# which gives CPU microseconds per request: a number that machine noise disturbs far less than
# requests per second. Memory is measured by loading exactly 1,000,000 small string keys with
# `redis-cli --pipe` into an empty server and dividing the growth of used_memory and of RSS.
#
# The report is a markdown document on stdout, also saved as utils/bench-results/<time>.md;
# progress goes to stderr. Exit status: 0 when every step ran (whether or not the goals were
# met), 1 when a server died, a step failed or timed out, 2 on bad usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"

readonly CLIENTS=50
readonly KEYSPACE=100000
readonly MEMORY_KEYS=1000000

# One test per line: label | pipeline depth | value size | what to run | request count as a
# multiple of --requests, in quarters (4 = the base count) | state before each run.
# "What to run" is a redis-benchmark -t name, or "cmd:" and a custom command line. The state is
# empty (none), "del:KEY" (the key deleted), "fill:KIND:KEY:N" (the key deleted, then filled
# with N elements, or with as many as the run has requests when N is "requests"; KIND is list,
# set, hash or zset), or "ttlkeys" (every key of the keyspace, key:000000000000 up to -r's
# limit, set with a TTL, so GET reads volatile keys; these rows come last, after the rows that
# read the keys without one).
readonly TESTS=(
  "SET -P 1|1|3|set|4"
  "GET -P 1|1|3|get|4"
  "INCR -P 1|1|3|incr|4"
  "MSET (10 keys) -P 1|1|3|mset|4"
  "SET 1 KB -P 1|1|1024|set|4"
  "GET 1 KB -P 1|1|1024|get|4"
  "SET -P 16|16|3|set|40"
  "GET -P 16|16|3|get|40"
  "INCR -P 16|16|3|incr|40"
  "MSET (10 keys) -P 16|16|3|mset|10"
  "SET 1 KB -P 16|16|1024|set|20"
  "GET 1 KB -P 16|16|1024|get|20"
  "LPUSH -P 1|1|3|lpush|4|del:mylist"
  "RPUSH -P 1|1|3|rpush|4|del:mylist"
  "LPOP -P 1|1|3|lpop|4|fill:list:mylist:requests"
  "RPOP -P 1|1|3|rpop|4|fill:list:mylist:requests"
  "SADD -P 1|1|3|sadd|4|del:myset"
  "SPOP -P 1|1|3|spop|4|fill:set:myset:requests"
  "HSET -P 1|1|3|hset|4|del:myhash"
  "ZADD -P 1|1|3|zadd|4|del:myzset"
  "ZPOPMIN -P 1|1|3|zpopmin|4|fill:zset:myzset:requests"
  "LRANGE 0 99 -P 1|1|3|cmd:LRANGE mylist 0 99|2|fill:list:mylist:600"
  "LRANGE 0 599 -P 1|1|3|cmd:LRANGE mylist 0 599|1|fill:list:mylist:600"
  "LPUSH -P 16|16|3|lpush|40|del:mylist"
  "RPUSH -P 16|16|3|rpush|40|del:mylist"
  "LPOP -P 16|16|3|lpop|40|fill:list:mylist:requests"
  "RPOP -P 16|16|3|rpop|40|fill:list:mylist:requests"
  "SADD -P 16|16|3|sadd|40|del:myset"
  "SPOP -P 16|16|3|spop|40|fill:set:myset:requests"
  "HSET -P 16|16|3|hset|40|del:myhash"
  "ZADD -P 16|16|3|zadd|40|del:myzset"
  "ZPOPMIN -P 16|16|3|zpopmin|20|fill:zset:myzset:requests"
  "LRANGE 0 99 -P 16|16|3|cmd:LRANGE mylist 0 99|8|fill:list:mylist:600"
  "LRANGE 0 599 -P 16|16|3|cmd:LRANGE mylist 0 599|2|fill:list:mylist:600"
  "SET EX -P 1|1|3|cmd:SET key:__rand_int__ xxx EX 100000|4"
  "GET, keys with a TTL -P 1|1|3|get|4|ttlkeys"
  "SET EX -P 16|16|3|cmd:SET key:__rand_int__ xxx EX 100000|40"
  "GET, keys with a TTL -P 16|16|3|get|40|ttlkeys"
)

# Prints the usage text at the top of this file; exits with $1 (2, to stderr, by default).
usage() { bench_usage 4 12 "${1:-2}"; }

# Prints "USED RSS SOURCE" for a side: used_memory and RSS in bytes ("-" when unknown), and
# where RSS came from: "info", or "proc" when the server does not report used_memory_rss.
memory_sample() {
  local side=$1 info used rss pages source=info
  info=$(bench_cli "$side" info memory 2>/dev/null) || true
  used=$(awk -F: '$1 == "used_memory" { print $2 }' <<<"$info")
  rss=$(awk -F: '$1 == "used_memory_rss" { print $2 }' <<<"$info")
  if [[ -z $rss && -r /proc/${BENCH_PID[$side]}/statm ]]; then
    read -r _ pages _ <"/proc/${BENCH_PID[$side]}/statm"
    rss=$((pages * $(getconf PAGESIZE)))
    source=proc
  fi
  echo "${used:--} ${rss:--} $source"
}

# Loads MEMORY_KEYS keys into one side and records its memory growth in MEM_* tables.
measure_memory() {
  local side=$1 before after used0 rss0 used1 rss1 rss_source start end pipe_out dbsize
  bench_log "memory: $side: FLUSHALL, load $MEMORY_KEYS keys with redis-cli --pipe"
  if [[ $(bench_cli "$side" flushall) != OK ]]; then
    require_alive "$side" "FLUSHALL"
    die "FLUSHALL failed on '$side'"
  fi
  sleep 0.5
  before=$(memory_sample "$side")
  start=$(date +%s.%N)
  pipe_out=$("$ROOT/utils/bench/gen-set-commands.sh" "$MEMORY_KEYS" |
    timeout 300 redis-cli -h 127.0.0.1 -p "${BENCH_PORT[$side]}" --pipe 2>&1) || true
  end=$(date +%s.%N)
  require_alive "$side" "the memory load"
  if ! grep -q "errors: 0, replies: $MEMORY_KEYS" <<<"$pipe_out"; then
    die "redis-cli --pipe into '$side' did not report $MEMORY_KEYS clean replies:" \
      "$(tail -n 3 <<<"$pipe_out")"
  fi
  dbsize=$(bench_cli "$side" dbsize)
  [[ $dbsize == "$MEMORY_KEYS" ]] || die "DBSIZE on '$side' is '$dbsize', expected $MEMORY_KEYS"
  sleep 1  # lets servers that refresh RSS on a timer catch up
  after=$(memory_sample "$side")
  read -r used0 rss0 _ <<<"$before"
  read -r used1 rss1 rss_source <<<"$after"
  if [[ $rss_source == proc ]]; then
    MEM_NOTE[$side]="RSS read from /proc (the server reports no used_memory_rss)"
  fi
  MEM_LOAD_S[$side]=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  MEM_USED0[$side]=${used0#-}
  MEM_USED1[$side]=${used1#-}
  if [[ $used0 != - && $used1 != - ]]; then
    MEM_USED_PER_KEY[$side]=$(awk -v a="$used0" -v b="$used1" -v n="$MEMORY_KEYS" \
      'BEGIN { printf "%.1f", (b - a) / n }')
  fi
  if [[ $rss0 != - && $rss1 != - ]]; then
    MEM_RSS_PER_KEY[$side]=$(awk -v a="$rss0" -v b="$rss1" -v n="$MEMORY_KEYS" \
      'BEGIN { printf "%.1f", (b - a) / n }')
  fi
  bench_log "memory: $side: used_memory $used0 -> $used1, RSS $rss0 -> $rss1," \
    "load ${MEM_LOAD_S[$side]} s"
  if [[ $(bench_cli "$side" flushall) != OK ]]; then
    require_alive "$side" "FLUSHALL after the load"
    die "FLUSHALL after the load failed on '$side'"
  fi
}

# Puts a side in the state a test starts from (the sixth field of its TESTS line): nothing,
# "del:KEY", or "fill:KIND:KEY:N" (see TESTS); $3 is the run's request count.
prepare_state() {
  local side=$1 state=$2 requests=$3 kind key count out
  [[ -z $state ]] && return 0
  if [[ $state == ttlkeys ]]; then
    out=$(awk -v n="$KEYSPACE" 'BEGIN { for (i = 0; i < n; i++) {
        k = sprintf("key:%012d", i)
        printf "*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$3\r\nxxx\r\n$2\r\nEX\r\n$6\r\n100000\r\n",
          length(k), k } }' |
      timeout 300 redis-cli -h 127.0.0.1 -p "${BENCH_PORT[$side]}" --pipe 2>&1) || true
    require_alive "$side" "setting the keyspace's TTLs"
    grep -q "errors: 0, replies: $KEYSPACE" <<<"$out" ||
      die "setting $KEYSPACE keys with a TTL on '$side' failed: $(tail -n 2 <<<"$out")"
    return 0
  fi
  IFS=':' read -r _ kind key count <<<"$state"
  if [[ $state == del:* ]]; then key=$kind; fi
  bench_cli "$side" del "$key" >/dev/null || die "DEL $key failed on '$side'"
  [[ $state == fill:* ]] || return 0
  [[ $count == requests ]] && count=$requests
  out=$("$ROOT/utils/bench/gen-fill-commands.sh" "$kind" "$key" "$count" |
    timeout 300 redis-cli -h 127.0.0.1 -p "${BENCH_PORT[$side]}" --pipe 2>&1) || true
  require_alive "$side" "filling $key"
  if ! grep -q "errors: 0, replies: $(((count + 99) / 100))" <<<"$out"; then
    die "filling $kind $key with $count elements on '$side' failed: $(tail -n 2 <<<"$out")"
  fi
}

# Runs test number IDX once against SIDE and appends requests/s and CPU us/request to the
# RPS and CPU tables.
run_benchmark() {
  local side=$1 idx=$2 label pipeline size name quarters state requests limit
  local cpu0 cpu1 out rc=0 rps us
  local -a what
  IFS='|' read -r label pipeline size name quarters state <<<"${TESTS[idx]}"
  requests=$((REQUESTS * quarters / 4))
  if [[ $name == cmd:* ]]; then
    read -r -a what <<<"${name#cmd:}"
  else
    what=(-t "$name")
  fi
  prepare_state "$side" "$state" "$requests"
  # Generous: a server 20 times slower than Redis still finishes; a stuck one is cut off.
  limit=$((30 + requests / 5000))
  cpu0=$(bench_cpu_seconds "$side")
  out=$(timeout "$limit" redis-benchmark -h 127.0.0.1 -p "${BENCH_PORT[$side]}" \
    -c "$CLIENTS" -P "$pipeline" -d "$size" -r "$KEYSPACE" -n "$requests" --csv \
    "${what[@]}" 2>"$WORK/benchmark.err") || rc=$?
  require_alive "$side" "$label"
  if ((rc == 124)); then
    die "redis-benchmark '$label' against '$side' did not finish within $limit s"
  fi
  cpu1=$(bench_cpu_seconds "$side")
  # The last row: the one test run, after any helper rows redis-benchmark adds.
  rps=$(awk -F, '{ gsub(/"/, "") } $1 != "test" && $2 + 0 > 0 { r = $2 } END { print r }' \
    <<<"$out")
  if ((rc != 0)) || [[ -z $rps ]]; then
    cat "$WORK/benchmark.err" >&2
    die "redis-benchmark '$label' against '$side' failed (exit $rc): ${out:-no output}"
  fi
  RPS["$idx,$side"]+=" $rps"
  if [[ -n $cpu0 && -n $cpu1 ]]; then
    us=$(awk -v a="$cpu0" -v b="$cpu1" -v n="$requests" \
      'BEGIN { printf "%.3f", (b - a) * 1e6 / n }')
    CPU["$idx,$side"]+=" $us"
  fi
  bench_log "$(printf '[%3d/%d] %-22s %-5s %12.0f rps  %s us/req' "$STEP" "$STEPS" "$label" \
    "$side" "$rps" "${us:-n/a}")"
}

# Prints the throughput table and the per-round figures behind it.
report_throughput() {
  local idx label pipeline ours redis r goal verdict met=0 cpu_o cpu_r
  echo "## Throughput (redis-benchmark -c $CLIENTS -r $KEYSPACE, median of $ROUNDS rounds)"
  echo
  echo "| test | requests | ours rps | redis rps | ratio | goal | result |" \
    "ours CPU us/req | redis CPU us/req |"
  echo "|---|---:|---:|---:|---:|---:|---|---:|---:|"
  for idx in "${SELECTED[@]}"; do
    IFS='|' read -r label pipeline _ _ quarters _ <<<"${TESTS[idx]}"
    # shellcheck disable=SC2086  # the tables hold space-separated lists
    ours=$(median ${RPS["$idx,ours"]:-})
    # shellcheck disable=SC2086
    redis=$(median ${RPS["$idx,redis"]:-})
    # shellcheck disable=SC2086
    cpu_o=$(median ${CPU["$idx,ours"]:-})
    # shellcheck disable=SC2086
    cpu_r=$(median ${CPU["$idx,redis"]:-})
    r=$(ratio "$ours" "$redis")
    if ((pipeline > 1)); then goal=1.00; else goal=0.95; fi
    if [[ $r != n/a ]] && awk -v r="$r" -v g="$goal" 'BEGIN { exit !(r >= g) }'; then
      verdict=ok
      met=$((met + 1))
    else
      verdict="**below**"
    fi
    echo "| $label | $((REQUESTS * quarters / 4)) | $(fmt '%.0f' "$ours") |" \
      "$(fmt '%.0f' "$redis") | $r | >= $goal | $verdict | $(fmt '%.2f' "$cpu_o") |" \
      "$(fmt '%.2f' "$cpu_r") |"
  done
  echo
  echo "$met of ${#SELECTED[@]} tests meet their goal. CPU is the server's user+system time per" \
    "request (ours: ${BENCH_CPU_SOURCE[ours]}, redis: ${BENCH_CPU_SOURCE[redis]}); lower is better."
  echo
  echo "Every round, requests/s (ours | redis):"
  echo
  for idx in "${SELECTED[@]}"; do
    IFS='|' read -r label _ <<<"${TESTS[idx]}"
    echo "- $label:${RPS["$idx,ours"]:-} |${RPS["$idx,redis"]:-}"
  done
  echo
}

# Prints the memory table.
report_memory() {
  echo "## Memory ($MEMORY_KEYS keys key:0000000001.., value \"val\", loaded with redis-cli --pipe)"
  echo
  echo "| measure | ours | redis | ratio (ours/redis) |"
  echo "|---|---:|---:|---:|"
  echo "| used_memory before load (B) | ${MEM_USED0[ours]:-n/a} | ${MEM_USED0[redis]:-n/a} | |"
  echo "| used_memory after load (B) | ${MEM_USED1[ours]:-n/a} | ${MEM_USED1[redis]:-n/a} | |"
  echo "| used_memory per key (B) | ${MEM_USED_PER_KEY[ours]:-n/a} |" \
    "${MEM_USED_PER_KEY[redis]:-n/a} |" \
    "$(ratio "${MEM_USED_PER_KEY[ours]:-}" "${MEM_USED_PER_KEY[redis]:-}") |"
  echo "| RSS per key (B) | ${MEM_RSS_PER_KEY[ours]:-n/a} | ${MEM_RSS_PER_KEY[redis]:-n/a} |" \
    "$(ratio "${MEM_RSS_PER_KEY[ours]:-}" "${MEM_RSS_PER_KEY[redis]:-}") |"
  echo "| load time (s) | ${MEM_LOAD_S[ours]:-n/a} | ${MEM_LOAD_S[redis]:-n/a} |" \
    "$(ratio "${MEM_LOAD_S[ours]:-}" "${MEM_LOAD_S[redis]:-}") |"
  echo
  if [[ -n ${MEM_NOTE[ours]:-}${MEM_NOTE[redis]:-} ]]; then
    echo "Note: ${MEM_NOTE[ours]:+ours: ${MEM_NOTE[ours]}. }" \
      "${MEM_NOTE[redis]:+redis: ${MEM_NOTE[redis]}.}"
    echo
  fi
}

# Prints the redis_version a side reports in INFO server, or "unknown".
server_version() {
  local version
  version=$(bench_info_field "$1" server redis_version) || true
  echo "${version:-unknown}"
}

# EXIT trap: stops both servers and removes scratch files; the exit status is left alone.
cleanup() {
  set +e
  bench_stop_all
  [[ -n ${WORK:-} ]] && rm -rf -- "$WORK"
}

main() {
  local ours="$ROOT/src/redis-server" redis=/usr/bin/redis-server requests="" quick=0
  local memory=1 throughput=1 only="" label command_line stamp report_file round idx side
  command_line=$(printf '%q ' "$0" "$@")
  ROUNDS=3
  while (($# > 0)); do
    case $1 in
      --ours) need_value "$1" "${2-}" '.'; ours=$2; shift ;;
      --redis) need_value "$1" "${2-}" '.'; redis=$2; shift ;;
      --requests) need_value "$1" "${2-}" '^[1-9][0-9]{0,8}$'; requests=$2; shift ;;
      --rounds) need_value "$1" "${2-}" '^[1-9][0-9]?$'; ROUNDS=$2; shift ;;
      --quick) quick=1 ;;
      --memory-only) throughput=0 ;;
      --no-memory) memory=0 ;;
      --only) need_value "$1" "${2-}" '.'; only=$2; shift ;;
      -h | --help) usage 0 ;;
      *) bench_log "bench: unknown argument '$1'"; usage ;;
    esac
    shift
  done
  if ((memory + throughput == 0)); then
    bench_log "bench: --memory-only and --no-memory exclude each other"
    exit 2
  fi
  if [[ -n $requests ]]; then
    REQUESTS=$requests
  elif ((quick)); then
    REQUESTS=50000
  else
    REQUESTS=300000
  fi

  for tool in redis-cli redis-benchmark timeout awk; do
    command -v "$tool" >/dev/null || die "'$tool' not found; run deps/install-deps.sh (redis-tools)"
  done
  if [[ ! -x $redis ]]; then
    die "Debian's redis-server is not at '$redis'. Install it with: deps/install-deps.sh --bench"
  fi
  [[ -x $ours ]] || die "our server '$ours' is missing or not executable; build it with make"

  declare -gA RPS=() CPU=() MEM_USED0=() MEM_USED1=() MEM_USED_PER_KEY=() MEM_RSS_PER_KEY=()
  declare -gA MEM_LOAD_S=() MEM_NOTE=()
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-vs-redis.XXXXXX")
  trap cleanup EXIT
  trap 'exit 130' INT TERM

  local load_avg started_at
  load_avg=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
  started_at=$(date '+%Y-%m-%d %H:%M:%S %Z')
  stamp=$(date '+%Y%m%d-%H%M%S')
  bench_start ours "$ours" || die "could not start our server '$ours'"
  bench_start redis "$redis" || die "could not start Redis '$redis'"
  bench_probe_cpu_source ours
  bench_probe_cpu_source redis
  bench_log "bench: ours on port ${BENCH_PORT[ours]}, redis on port ${BENCH_PORT[redis]}"

  if ((memory)); then
    measure_memory ours
    measure_memory redis
  fi
  SELECTED=()
  for idx in "${!TESTS[@]}"; do
    IFS='|' read -r label _ <<<"${TESTS[idx]}"
    if [[ -z $only ]] || grep -Eq -- "$only" <<<"$label"; then SELECTED+=("$idx"); fi
  done
  ((${#SELECTED[@]} > 0 || throughput == 0)) || die "--only '$only' matches no test"
  if ((throughput)); then
    STEPS=$((${#SELECTED[@]} * ROUNDS * 2))
    STEP=0
    for idx in "${SELECTED[@]}"; do
      for ((round = 1; round <= ROUNDS; round++)); do
        for side in ours redis; do
          STEP=$((STEP + 1))
          run_benchmark "$side" "$idx"
        done
      done
    done
  fi

  mkdir -p "$ROOT/utils/bench-results"
  report_file="$ROOT/utils/bench-results/$stamp.md"
  {
    echo "# redis-tp vs Redis 7.0"
    echo
    echo "- date: $started_at"
    echo "- command: \`${command_line% }\`"
    echo "- ours: \`$ours\` (redis_version $(server_version ours))"
    echo "- redis: \`$redis\` (redis_version $(server_version redis))"
    echo "- machine: $(nproc) cores, load average at start $load_avg"
    echo "- requests per -P 1 run: $REQUESTS (-P 16 runs: x10, MSET x2.5, 1 KB values x5;" \
      "aggregate tests: see the requests column)"
    echo
    if ((throughput)); then report_throughput; fi
    if ((memory)); then report_memory; fi
  } | tee "$report_file"
  bench_log "bench: report saved to $report_file"
}

main "$@"
