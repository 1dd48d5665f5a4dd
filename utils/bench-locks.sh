#!/usr/bin/env bash
# Contended-lock benchmark: throughput, fairness and the herd, redis-tp vs Redis 7.0.
#
# Usage: utils/bench-locks.sh [--ours PATH] [--redis PATH] [--quick] [--seconds N]
#                             [--clients LIST]
#   --ours PATH     server under test (default: src/redis-server in this repository)
#   --redis PATH    reference server (default: /usr/bin/redis-server)
#   --quick         1 s per cell instead of 4, to check that everything works
#   --seconds N     seconds per cell (overrides --quick)
#   --clients LIST  comma-separated client counts (default: 2,20,200)
#
# Method. Both servers run at once on free loopback ports (utils/bench/servers.sh: no config
# file, no persistence). For each client count, `coord-bench locks` (utils/coord-bench/locks.h,
# built by utils/bench/coord-tool.sh) drives that many clients, one connection each, from one
# epoll loop; each client loops acquire -> critical section (GET counter, SET counter+1) ->
# release for the cell's time, then the run drains. The three schemes run one after another:
#   ours BSETTP          fair: BSETTP lock <token> 0, release DELTP;
#   ours SETTP+WATCHEX   opportunistic: SETTP; on 0 wait for the `watchex lock DEL` push, retry;
#   Redis SET NX PX      the Redisson recipe: SET lock <token> NX PX 30000; on failure wait for
#                        a pub/sub message (a second connection per client, subscribed for the
#                        whole run) or 100 ms; release by one EVAL: if GET == token then DEL and
#                        PUBLISH.
# Reported per cell: acquisitions/s; acquisitions per client (min / median / max and the
# coefficient of variation, stddev / mean: 0 is perfectly even); wasted round trips per
# acquisition (refused SETTP / SET NX attempts: the herd); acquire wait percentiles; and the
# mutual-exclusion checks: grants seen while another client held the lock, and increments lost
# from the counter (final value vs acquisitions). Both must be 0.
#
# The report is markdown on stdout, also saved as utils/bench-results/locks-<time>.md; progress
# goes to stderr. Exit status: 0 when every cell ran and no exclusion check failed, 1 when a
# server died, a step failed or exclusion was violated, 2 on bad usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-locks
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"
COORD_TOOL_ROOT=$ROOT
# shellcheck source=utils/bench/coord-tool.sh
source "$ROOT/utils/bench/coord-tool.sh"

TOOL=$(coord_tool_path)
readonly TOOL
readonly RETRY_MS=100
# Extra time a cell may take to drain after its measured seconds.
readonly DRAIN_SECONDS=20
# Target spec per scheme: name | side | tool mode | server label | scheme label.
readonly SCHEMES=(
  "bsettp|ours|bsettp|ours|BSETTP (fair)"
  "settp|ours|settp-watchex|ours|SETTP + WATCHEX"
  "redis|redis|redis-redisson|redis 7.0|SET NX PX + pub/sub + Lua release"
)

usage() { bench_usage 4 9 "${1:-2}"; }

# Runs every scheme with CLIENTS clients; result lines go to $WORK/locks-CLIENTS.out.
run_cell() {
  local clients=$1 spec name side mode rc=0 out="$WORK/locks-$1.out"
  local targets=()
  for spec in "${SCHEMES[@]}"; do
    IFS='|' read -r name side mode _ <<<"$spec"
    targets+=(--target "$name=${BENCH_PORT[$side]}:$mode")
  done
  bench_log "locks: $clients clients, $SECONDS_PER_CELL s per scheme"
  timeout $((${#SCHEMES[@]} * (SECONDS_PER_CELL + DRAIN_SECONDS) + 60)) "$TOOL" locks \
    --clients "$clients" --seconds "$SECONDS_PER_CELL" --retry-ms "$RETRY_MS" \
    --max-seconds $((SECONDS_PER_CELL + DRAIN_SECONDS)) --key "bench:lock:$clients" \
    "${targets[@]}" >"$out" 2>"$WORK/locks-$clients.err" || rc=$?
  [[ -s $WORK/locks-$clients.err ]] && sed "s/^/  [locks $clients] /" "$WORK/locks-$clients.err" >&2
  require_alive ours "the $clients-client cell"
  require_alive redis "the $clients-client cell"
  ((rc == 124)) && die "coord-bench locks with $clients clients did not finish in time"
  ((rc == 0)) || die "coord-bench locks with $clients clients failed with status $rc"
  sed 's/^/  /' "$out" >&2
}

report() {
  local clients spec name label scheme line bad=0
  echo "## Contended lock, one lock, ${SECONDS_PER_CELL} s per cell"
  echo
  echo "| clients | server | scheme | acquisitions | acq/s | per client min / median / max |" \
    "CV | wasted RT / acq | 100 ms timeouts | overlapping grants | lost increments |" \
    "bad releases | wait p50 / p99 ms |"
  echo "|---:|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|"
  for clients in "${CLIENT_COUNTS[@]}"; do
    for spec in "${SCHEMES[@]}"; do
      IFS='|' read -r name _ _ label scheme <<<"$spec"
      line=$(grep -E "^result name=$name " "$WORK/locks-$clients.out" | tail -n 1 || true)
      if [[ -z $line ]]; then
        echo "| $clients | $label | $scheme | missing | | | | | | | | | |"
        bad=1
        continue
      fi
      if [[ $(field "$line" violations) != 0 || $(field "$line" lost_increments) != 0 ]]; then
        bad=1
      fi
      echo "| $clients | $label | $scheme | $(field "$line" acquisitions) |" \
        "$(fmt '%.0f' "$(field "$line" rate)") |" \
        "$(field "$line" per_client_min) / $(fmt '%.0f' "$(field "$line" per_client_median)")" \
        "/ $(field "$line" per_client_max) | $(field "$line" cv) |" \
        "$(fmt '%.2f' "$(field "$line" wasted_per_acq)") | $(field "$line" timeouts) |" \
        "$(field "$line" violations) | $(field "$line" lost_increments) |" \
        "$(field "$line" bad_releases) |" \
        "$(awk -v a="$(field "$line" wait_p50_us)" -v b="$(field "$line" wait_p99_us)" \
          'BEGIN { printf "%.2f / %.2f", a / 1000, b / 1000 }') |"
    done
  done
  echo
  echo "- Critical section: GET counter, SET counter+1 (two round trips under the lock). Rate ="
  echo "  completed critical sections / wall time including the drain (after the cell's time a"
  echo "  refused client stops; a granted one finishes its section)."
  echo "- CV: coefficient of variation (stddev / mean) of acquisitions per client; 0 = even."
  echo "- wasted RT / acq: refused SETTP or SET NX attempts per acquisition (the herd); a waiter"
  echo "  woken by a release retries, and all but one fail. BSETTP is never refused."
  echo "- 100 ms timeouts: waits that ended without a wake-up (Redis: the recipe's poll; ours"
  echo "  would mean a lost DEL push)."
  echo "- overlapping grants: a grant seen by the tool while another client held the lock;"
  echo "  lost increments: acquisitions - final counter. Both prove mutual exclusion when 0."
  echo "- Redis waiters stay subscribed for the whole run (Redisson subscribes on the first"
  echo "  failure and unsubscribes after acquiring), which spares Redis two round trips per wait."
  echo "- All clients share one epoll loop; sockets ready together are handled in random order"
  echo "  so that woken clients race fairly. Wait = first attempt to grant."
  echo
  return "$bad"
}

cleanup() {
  set +e
  bench_stop_all
  [[ -n ${WORK:-} ]] && rm -rf -- "$WORK"
}

main() {
  local redis=/usr/bin/redis-server quick=0 seconds="" clients_list="2,20,200" command_line
  local started start_s stamp load_avg report_file version_o version_r elapsed rc=0 clients
  command_line=$(printf '%q ' "$0" "$@")
  OURS="$ROOT/src/redis-server"
  while (($# > 0)); do
    case $1 in
      --ours) need_value "$1" "${2-}" '.'; OURS=$2; shift ;;
      --redis) need_value "$1" "${2-}" '.'; redis=$2; shift ;;
      --seconds) need_value "$1" "${2-}" '^[1-9][0-9]?$'; seconds=$2; shift ;;
      --clients)
        need_value "$1" "${2-}" '^[1-9][0-9]{0,2}(,[1-9][0-9]{0,2})*$'
        clients_list=$2; shift ;;
      --quick) quick=1 ;;
      -h | --help) usage 0 ;;
      *) bench_log "bench-locks: unknown argument '$1'"; usage ;;
    esac
    shift
  done
  if ((quick)); then SECONDS_PER_CELL=${seconds:-1}; else SECONDS_PER_CELL=${seconds:-4}; fi
  IFS=, read -r -a CLIENT_COUNTS <<<"$clients_list"
  for tool in redis-cli timeout awk g++; do
    command -v "$tool" >/dev/null || die "'$tool' not found"
  done
  [[ $OURS == /* ]] || OURS="$PWD/$OURS"
  [[ $redis == /* ]] || redis="$PWD/$redis"
  [[ -x $redis ]] || die "Debian's redis-server is not at '$redis'"
  [[ -x $OURS ]] || die "our server '$OURS' is missing or not executable; build it first"
  # Two connections per Redis client, plus the servers' own descriptors.
  local soft
  soft=$(ulimit -Sn)
  if [[ $soft != unlimited ]] && ((soft < 2 * 999 + 100)); then
    ulimit -Sn "$(ulimit -Hn)" 2>/dev/null || true
  fi

  WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-locks.XXXXXX")
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  start_s=$(date +%s)
  started=$(date '+%Y-%m-%d %H:%M:%S %Z')
  stamp=$(date '+%Y%m%d-%H%M%S')
  load_avg=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

  coord_tool_build || die "the load tool did not compile"
  bench_start ours "$OURS" || die "could not start our server '$OURS'"
  bench_start redis "$redis" || die "could not start Redis '$redis'"
  version_o=$(bench_info_field ours server redis_version)
  version_r=$(bench_info_field redis server redis_version)
  bench_log "bench-locks: ours on port ${BENCH_PORT[ours]}, redis on port ${BENCH_PORT[redis]}"

  for clients in "${CLIENT_COUNTS[@]}"; do run_cell "$clients"; done
  elapsed=$(($(date +%s) - start_s))

  mkdir -p "$ROOT/utils/bench-results"
  report_file="$ROOT/utils/bench-results/locks-$stamp.md"
  {
    echo "# Contended lock: redis-tp vs Redis 7.0"
    echo
    echo "- date: $started; the run took ${elapsed} s"
    echo "- command: \`${command_line% }\`"
    echo "- ours: \`$OURS\` (redis_version ${version_o:-unknown})"
    echo "- redis: \`$redis\` (redis_version ${version_r:-unknown})"
    echo "- machine: $(nproc) cores, load average at start $load_avg; loopback only"
    echo "- figures are for comparison within this run, not absolute capacity"
    echo
    report || rc=1
  } > "$report_file"
  cat "$report_file"
  bench_log "bench-locks: report saved to $report_file (run took ${elapsed} s)"
  ((rc == 0)) || die "a cell is missing or mutual exclusion was violated (see the table)"
}

main "$@"
