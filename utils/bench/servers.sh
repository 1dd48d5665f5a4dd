# shellcheck shell=bash
# Server lifecycle for the benchmark scripts (sourced, not run).
#
# Model: a benchmark compares "sides", each a short name such as `ours` or `redis`. A side is
# one redis-server-compatible process that this shell started: it listens on 127.0.0.1 only, on
# a port nobody else was using, with persistence off and its own scratch directory, and it reads
# no configuration file, so whatever is in /etc cannot skew the comparison. The tables below map
# a side to its pid, port, directory and binary; they belong to the sourcing shell.
#
# Invariants: every step that talks to a server runs under `timeout`, so a wedged server becomes
# a reported failure instead of a hang; every process started here is stopped by
# bench_stop_all, which the caller installs as its EXIT trap. Functions return non-zero and say
# why on stderr; they never exit the caller's shell themselves.

declare -gA BENCH_PID=() BENCH_PORT=() BENCH_DIR=() BENCH_BIN=() BENCH_CPU_SOURCE=()
declare -ga BENCH_SIDES=()

# Seconds any single INFO/PING/DBSIZE/FLUSHALL round trip may take.
readonly BENCH_CLI_TIMEOUT=60

bench_log() {
  printf '%s\n' "$*" >&2
}

# Succeeds if something accepts TCP connections on 127.0.0.1:$1.
bench_port_listening() {
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

# Prints a loopback port in 20000-59999 on which nothing listens and which no side of ours
# already uses. Fails after 200 unlucky draws.
bench_free_port() {
  local try port used
  for ((try = 0; try < 200; try++)); do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    used=0
    for side in "${!BENCH_PORT[@]}"; do
      [[ ${BENCH_PORT[$side]} == "$port" ]] && used=1
    done
    if ((used == 0)) && ! bench_port_listening "$port"; then
      printf '%s\n' "$port"
      return 0
    fi
  done
  bench_log "bench: no free loopback port found"
  return 1
}

# Runs redis-cli against a side, with carriage returns removed from the output.
# Usage: bench_cli SIDE ARG...
bench_cli() {
  local side=$1
  shift
  timeout "$BENCH_CLI_TIMEOUT" redis-cli -h 127.0.0.1 -p "${BENCH_PORT[$side]}" "$@" | tr -d '\r'
}

# Prints one field of INFO SECTION, or nothing when the server does not report it.
# Usage: bench_info_field SIDE SECTION FIELD
bench_info_field() {
  bench_cli "$1" info "$2" 2>/dev/null | awk -F: -v f="$3" '$1 == f { print $2; exit }'
}

# Succeeds while the side's process is alive.
bench_alive() {
  local pid=${BENCH_PID[$1]:-}
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null
}

# Says that a side's server is gone and shows the end of its log.
bench_report_death() {
  local side=$1
  bench_log "bench: the '$side' server (${BENCH_BIN[$side]}, pid ${BENCH_PID[$side]}," \
    "port ${BENCH_PORT[$side]}) is not running any more. Last lines of its output:"
  tail -n 20 "${BENCH_DIR[$side]}/server.log" >&2 2>/dev/null || true
}

# Starts BINARY as SIDE and waits until it answers PING. Tries a few ports in case another
# process grabs the chosen one between the check and the bind.
# Usage: bench_start SIDE BINARY
bench_start() {
  local side=$1 bin=$2 attempt port dir pid waited reply reported_pid
  dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-$side.XXXXXX") || return 1
  BENCH_DIR[$side]=$dir
  BENCH_BIN[$side]=$bin
  BENCH_SIDES+=("$side")
  for ((attempt = 1; attempt <= 5; attempt++)); do
    port=$(bench_free_port) || return 1
    BENCH_PORT[$side]=$port
    # BENCH_SERVER_CPUS (e.g. "1") pins every server to those cores with taskset, so that
    # redis-benchmark on the other core does not steal the server's time slices.
    local pin=()
    [[ -n ${BENCH_SERVER_CPUS:-} ]] && pin=(taskset -c "$BENCH_SERVER_CPUS")
    # BENCH_SERVER_ARGS (words) are added to every server's command line.
    local extra=()
    [[ -n ${BENCH_SERVER_ARGS:-} ]] && read -r -a extra <<<"$BENCH_SERVER_ARGS"
    (cd "$dir" && exec "${pin[@]}" "$bin" --port "$port" --bind 127.0.0.1 --save "" \
      --appendonly no --dir "$dir" "${extra[@]}") >"$dir/server.log" 2>&1 &
    pid=$!
    BENCH_PID[$side]=$pid
    for ((waited = 0; waited < 100; waited++)); do
      bench_alive "$side" || break
      reply=$(timeout 2 redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | tr -d '\r')
      if [[ $reply == PONG ]]; then
        # A PONG from a stranger on our port would fool us; real Redis names its pid.
        reported_pid=$(bench_info_field "$side" server process_id)
        if [[ -n $reported_pid && $reported_pid != "$pid" ]]; then
          bench_log "bench: port $port answered as pid $reported_pid, not our $pid"
          break
        fi
        return 0
      fi
      sleep 0.1
    done
    if bench_alive "$side"; then
      bench_log "bench: '$side' ($bin) did not answer PING on port $port within 10 s"
      bench_stop "$side"
      return 1
    fi
    if ! grep -qi 'address already in use' "$dir/server.log" 2>/dev/null; then
      bench_report_death "$side"
      return 1
    fi
    bench_log "bench: port $port was taken under us; trying another"
  done
  bench_log "bench: could not start '$side' after $((attempt - 1)) attempts"
  return 1
}

# Decides once how CPU time is read for a side: INFO cpu when the server reports it, else the
# kernel's accounting in /proc (10 ms resolution), else not at all.
bench_probe_cpu_source() {
  local side=$1
  if [[ -n $(bench_info_field "$side" cpu used_cpu_user) ]]; then
    BENCH_CPU_SOURCE[$side]=info
  elif [[ -r /proc/${BENCH_PID[$side]}/stat ]]; then
    BENCH_CPU_SOURCE[$side]=proc
  else
    BENCH_CPU_SOURCE[$side]=none
  fi
}

# Prints the side's user+system CPU seconds so far, or nothing when unavailable.
bench_cpu_seconds() {
  local side=$1 user sys
  case ${BENCH_CPU_SOURCE[$side]:-none} in
    info)
      bench_cli "$side" info cpu 2>/dev/null |
        awk -F: '$1 == "used_cpu_user" || $1 == "used_cpu_sys" { s += $2; n++ }
                 END { if (n == 2) printf "%.6f\n", s }'
      ;;
    proc)
      # Fields after the parenthesised command name: utime and stime are the 12th and 13th.
      read -r user sys < <(sed 's/.*) //' "/proc/${BENCH_PID[$side]}/stat" 2>/dev/null |
        awk '{ print $12, $13 }') || return 0
      [[ -n $user ]] && awk -v u="$user" -v s="$sys" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { printf "%.6f\n", (u + s) / hz }'
      ;;
  esac
  return 0
}

# Stops one side: SIGTERM, up to 5 s of grace, then SIGKILL; removes its scratch directory.
bench_stop() {
  local side=$1 pid=${BENCH_PID[$1]:-} i
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  BENCH_PID[$side]=""
  if [[ -n ${BENCH_DIR[$side]:-} && -d ${BENCH_DIR[$side]} ]]; then
    rm -rf -- "${BENCH_DIR[$side]}"
  fi
}

# Stops every side started by bench_start. Safe to call more than once, and from an EXIT trap
# under `set -e`: one failing step must not leave the other servers running.
bench_stop_all() {
  local side
  for side in "${BENCH_SIDES[@]}"; do
    bench_stop "$side" || true
  done
}

# ---- Number helpers shared by the benchmark scripts ---------------------------------------

# Prints the median of the numbers given as arguments (nothing when there are none).
median() {
  (($# > 0)) || return 0
  printf '%s\n' "$@" | sort -g |
    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Prints A/B to two decimals, or "n/a" when either is missing or B is zero.
ratio() {
  awk -v a="${1:-}" -v b="${2:-}" \
    'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "n/a"; else printf "%.2f\n", a / b }'
}

# Prints a number with the given printf format, or "n/a" when it is missing.
fmt() {
  if [[ -z ${2:-} ]]; then echo "n/a"; else awk -v v="$2" -v f="$1" 'BEGIN { printf f, v }'; fi
}

# ---- Script helpers shared by the benchmark scripts (they set BENCH_NAME first) -------------

die() {
  bench_log "${BENCH_NAME:-bench}: $*"
  exit 1
}

# Exits with the script's usage text unless option $1 was given a value ($2) matching $3.
need_value() {
  if [[ ! $2 =~ $3 ]]; then
    bench_log "${BENCH_NAME:-bench}: $1 needs a value matching $3"
    usage
  fi
}

# Fails (exit 1) unless the side's server is still running.
require_alive() {
  if ! bench_alive "$1"; then
    bench_report_death "$1"
    die "stopping: the '$1' server died during: $2"
  fi
}

# Parses the options of a two-server benchmark into OURS, REDIS, REQUESTS and ROUNDS (defaults:
# src/redis-server, Debian's Redis, 1000000, 3): --ours PATH --redis PATH --requests N
# --rounds N -h/--help. Bad usage and --help go to the calling script's `usage [status]`.
# shellcheck disable=SC2034  # the variables are the caller's
bench_parse_pair_options() {
  OURS=$ROOT/src/redis-server
  REDIS=/usr/bin/redis-server
  REQUESTS=1000000
  ROUNDS=3
  while (($# > 0)); do
    case $1 in
      --ours) need_value "$1" "${2:-}" '.' && OURS=$2 && shift 2 ;;
      --redis) need_value "$1" "${2:-}" '.' && REDIS=$2 && shift 2 ;;
      --requests) need_value "$1" "${2:-}" '^[0-9]+$' && REQUESTS=$2 && shift 2 ;;
      --rounds) need_value "$1" "${2:-}" '^[0-9]+$' && ROUNDS=$2 && shift 2 ;;
      -h | --help) usage 0 ;;
      *) usage ;;
    esac
  done
}

# One `redis-benchmark -c 50 -P 16 -r 100000 -n REQUESTS -t TEST` run against SIDE, with the
# connection options given after TEST (port, TLS, user); prints "req_per_sec us_per_req", the
# second from the server's own CPU time around the run. WHAT names the run in errors.
# BENCH_DEPTH and BENCH_RUN_REQUESTS, when set, replace the pipeline depth 16 and REQUESTS.
# Usage: bench_p16_run SIDE WHAT TEST OPTION...
bench_p16_run() {
  local side=$1 what=$2 test=$3 out rps cpu0 cpu1
  local depth=${BENCH_DEPTH:-16} n=${BENCH_RUN_REQUESTS:-$REQUESTS}
  shift 3
  cpu0=$(bench_cpu_seconds "$side")
  local pin=()
  [[ -n ${BENCH_CLIENT_CPUS:-} ]] && pin=(taskset -c "$BENCH_CLIENT_CPUS")
  out=$(timeout 600 "${pin[@]}" redis-benchmark -h 127.0.0.1 "$@" -c 50 -P "$depth" -r 100000 \
    -n "$n" -t "$test" -q 2>/dev/null | tr '\r' '\n' | grep -E 'requests per second' | tail -1) ||
    die "redis-benchmark failed on $side"
  cpu1=$(bench_cpu_seconds "$side")
  require_alive "$side" "$what"
  rps=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "requests") { print $(i - 1); exit } }' <<<"$out")
  awk -v r="$rps" -v a="$cpu0" -v b="$cpu1" -v n="$n" \
    'BEGIN { printf "%s %.4f\n", r, (b - a) * 1e6 / n }'
}

# Prints the value of field NAME in a tool result line ("result name=x kind=y a=1 ...").
field() {
  awk -v want="$2" '{ for (i = 1; i <= NF; i++) { split($i, kv, "=");
    if (kv[1] == want) { print substr($i, length(want) + 2); exit } } }' <<<"$1"
}

# Prints lines FIRST..LAST of the calling script's header comment (its usage text, without the
# leading "# ") and exits with STATUS: to stdout for 0 (--help), to stderr otherwise.
bench_usage() {
  local first=$1 last=$2 status=${3:-2} script=${BASH_SOURCE[1]}
  if [[ $status == 0 ]]; then
    sed -n "${first},${last}s/^# \{0,1\}//p" "$script"
  else
    sed -n "${first},${last}s/^# \{0,1\}//p" "$script" >&2
  fi
  exit "$status"
}

# The restricted user both ACL benchmarks use (bench-acl.sh's cost, bench-latency.sh's memory):
# 20 rules, ten key patterns, two channel patterns and four command rules, the shape of a real
# service account.
# shellcheck disable=SC2034  # used by the scripts that source this file
readonly BENCH_ACL_RULES=(on '>bench-pass' resetkeys resetchannels
  '~app:*' '~cache:*' '~lock:*' '~queue:*' '~session:*' '~user:*' '~order:*' '~stats:*'
  '~tmp:*' '~key:*' '&news.*' '&alerts.*'
  '-@all' '+@read' '+@write' '-@dangerous')
