#!/usr/bin/env bash
# Benchmarks of Pub/Sub and keyspace notifications, side by side with Debian's Redis 7.0.
#
# Usage: utils/bench-pubsub.sh [--ours PATH] [--redis PATH] [--base PATH] [--quick]
#                              [--rounds N] [--only LIST]
#   --ours PATH    server under test (default: src/redis-server in this repository)
#   --redis PATH   reference server (default: /usr/bin/redis-server)
#   --base PATH    our server built without the feature, for part 4 (skipped when not given)
#   --quick        a shorter run (fewer messages, changes and rounds) to check that all works
#   --rounds N     rounds per side and test in parts 1 and 4 (default 5, quick 2)
#   --only LIST    comma-separated parts to run: publish,fanout,memory,idle (default: all)
#
# Method. Servers run at once on free loopback ports (utils/bench/servers.sh: no config file, no
# persistence); the load comes from build/coord-bench/coord-bench (utils/coord-bench/), as in
# utils/bench-coordination.sh, whose steps this script shares (utils/bench/coord-run.sh).
#  1. PUBLISH throughput: N RESP2 subscribers of one channel (N = 1, 10, 1,000) and one
#     publisher at pipeline depth 1 and 16 (`coord-bench publish`). Messages published/s and
#     delivered/s (N x published); every subscriber must receive every message in order, and
#     every PUBLISH reply must be N: losses are counted. Runs alternate between the servers,
#     the order rotating from round to round; medians of the rounds.
#  2. Fan-out latency: W subscribers (W = 100 and 1,000) and a writer that alternates SET and
#     DEL with a 1 ms pause, latency per (change, subscriber) pair as bench-coordination.sh's
#     part 1 measures it (`coord-bench fanout`). Redis: keyspace notifications (KEA) on
#     __keyspace@0__:<key>, and plain PUBLISH. Ours: the same two, plus the existence events on
#     __watchex@0__:<key>. A mode our server does not deliver yet (probed with one subscriber
#     first) is left out and said so. All targets share one run, change by change.
#  3. Memory per subscription: used_memory after the connections are open (one PING each) and
#     after the subscriptions are made, for channels (1,000 connections x the same 1,000
#     channels; 100 connections x 10,000 channels of their own) and patterns (1,000 x the same
#     100 patterns; 100 x 1,000 own patterns). The servers' own channel and pattern counts
#     (INFO pubsub_channels / pubsub_patterns) are checked against what was subscribed.
#  4. Cost when unused: redis-benchmark SET and GET at -P 16 (-c 50, -r 100000) and SET -P 1
#     on ours (notifications off, no subscriber) and on --base, rotating, medians; CPU
#     microseconds per request from INFO cpu.
#
# The report is markdown on stdout, also saved as utils/bench-results/pubsub-<time>.md; progress
# goes to stderr. Goals are printed beside the figures; missing one is reported, not an error.
# Exit status: 0 when every part ran, 1 when a server died or a step failed, 2 on bad usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-pubsub
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"
COORD_TOOL_ROOT=$ROOT
# shellcheck source=utils/bench/coord-tool.sh
source "$ROOT/utils/bench/coord-tool.sh"
# shellcheck source=utils/bench/coord-run.sh
source "$ROOT/utils/bench/coord-run.sh"

TOOL=$(coord_tool_path)
readonly TOOL
# Descriptors the fan-out needs: up to five targets x (1,000 subscribers + writer), plus slack.
readonly NOFILE_WANTED=16384
readonly NOFILE_NEEDED=8192
readonly PARTS_RE='(publish|fanout|memory|idle)'
readonly PUBLISH_SUBSCRIBERS=(1 10 1000)
readonly PUBLISH_PIPELINES=(1 16)
readonly FANOUT_WATCHERS=(100 1000)
readonly FANOUT_PAUSE_US=1000
readonly BENCH_CLIENTS=50
readonly BENCH_KEYSPACE=100000
# Part 4, one test per line: label | pipeline depth | redis-benchmark -t name.
readonly IDLE_TESTS=("SET -P 16|16|set" "GET -P 16|16|get" "SET -P 1|1|set")
# Part 3 shapes: label | hold mode | connections | names per connection | layout.
readonly MEMORY_SHAPES=(
  "1,000 conns x the same 1,000 channels|subscribe|1000|1000|shared"
  "100 conns x 10,000 own channels|subscribe|100|10000|distinct"
  "1,000 conns x the same 100 patterns|psubscribe|1000|100|shared"
  "100 conns x 1,000 own patterns|psubscribe|100|1000|distinct"
)
# Part 3: names per (P)SUBSCRIBE, few enough that neither server's per-connection buffers grow
# for the confirmations (ours keeps a grown reply buffer, Redis shrinks its buffers in a cron
# pass), and the pause before each used_memory sample, long enough for that pass over 1,000
# connections: otherwise per-connection buffers, not subscriptions, dominate the 100,000-pair
# shapes.
readonly MEMORY_BATCH=10
readonly MEMORY_SETTLE_S=2.5
# Part 2 targets: name | side | coord-bench fanout mode | what the row says.
readonly FANOUT_TARGETS=(
  "ours-keyspace|ours|keyspace|keyspace notifications (KEA), __keyspace@0__:key"
  "ours-watchex|ours|watchex-channel|existence events, __watchex@0__:key"
  "ours-publish|ours|publish|PUBLISH to the subscribers' channel"
  "redis-keyspace|redis|keyspace|keyspace notifications (KEA), __keyspace@0__:key"
  "redis-publish|redis|publish|PUBLISH to the subscribers' channel"
)

usage() { bench_usage 4 11 "${1:-2}"; }

# Prints the number of messages part 1 publishes with N subscribers at pipeline depth P: about
# the same amount of server work per run (fewer messages when each reaches 1,000 connections).
publish_messages() {
  local n=$1 p=$2 m
  case $n in
    1) m=20000 ;;
    10) m=20000 ;;
    *) m=400 ;;
  esac
  ((p > 1)) && m=$((m * 8))
  ((QUICK)) && m=$((m / 4))
  echo "$m"
}

# Part 1: every (subscribers, pipeline) case, ROUNDS times, the servers' order rotating.
run_publish() {
  local round n p m label line side order cpu1
  local -a sides=(ours redis)
  local -A cpu0=()
  for ((round = 0; round < ROUNDS; round++)); do
    for n in "${PUBLISH_SUBSCRIBERS[@]}"; do
      for p in "${PUBLISH_PIPELINES[@]}"; do
        m=$(publish_messages "$n" "$p")
        label="publish-$n-$p-$round"
        order=("${sides[round % 2]}" "${sides[(round + 1) % 2]}")
        # Each server works only during its own target's turn, so CPU sampled around the whole
        # run is that target's (its subscribers' SUBSCRIBE included, a small share).
        for side in "${sides[@]}"; do cpu0[$side]=$(bench_cpu_seconds "$side"); done
        run_tool "$label" 300 publish --subscribers "$n" --pipeline "$p" --messages "$m" \
          --max-seconds 120 --target "${order[0]}=${BENCH_PORT[${order[0]}]}:resp2" \
          --target "${order[1]}=${BENCH_PORT[${order[1]}]}:resp2"
        require_alive ours "PUBLISH to $n subscribers"
        require_alive redis "PUBLISH to $n subscribers"
        for side in "${sides[@]}"; do
          line=$(result_line "$WORK/$label.out" "$side")
          [[ -n $line ]] || die "no result for $side in $label"
          cpu1=$(bench_cpu_seconds "$side")
          if [[ -n ${cpu0[$side]} && -n $cpu1 ]]; then
            PUB_CPU["$n,$p,$side"]+=" $(awk -v a="${cpu0[$side]}" -v b="$cpu1" \
              -v d="$(field "$line" messages)" -v n="$n" \
              'BEGIN { printf "%.3f", (b - a) * 1e6 / (d * n) }')"
          fi
          PUB_RATE["$n,$p,$side"]+=" $(field "$line" published_per_s)"
          PUB_DELIVERED["$n,$p,$side"]+=" $(field "$line" delivered_per_s)"
          PUB_BAD["$n,$p,$side"]=$((${PUB_BAD["$n,$p,$side"]:-0} + $(field "$line" lost) + \
            $(field "$line" disorder) + $(field "$line" reply_mismatch) + \
            $(field "$line" closed)))
          PUB_MESSAGES["$n,$p"]=$(field "$line" messages)
        done
        bench_log "$(printf 'publish round %d/%d: %4d subscribers -P %-2d %7d msgs:' \
          $((round + 1)) "$ROUNDS" "$n" "$p" "$m")" \
          "ours $(field "$(result_line "$WORK/$label.out" ours)" published_per_s)/s," \
          "redis $(field "$(result_line "$WORK/$label.out" redis)" published_per_s)/s"
      done
    done
  done
}

# Succeeds when our server delivers fan-out MODE: one subscriber, two changes, no loss.
ours_delivers() {
  local mode=$1 line
  timeout 30 "$TOOL" fanout --watchers 1 --changes 2 --pause-us 0 --change-timeout-ms 500 \
    --max-seconds 10 --key "pbench:probe" --target "probe=${BENCH_PORT[ours]}:$mode" \
    >"$WORK/probe-$mode.out" 2>"$WORK/probe-$mode.err" || return 1
  line=$(result_line "$WORK/probe-$mode.out" probe)
  [[ $(field "$line" lost)$(field "$line" disorder)$(field "$line" unexpected) == 000 ]]
}

# Part 2: fan-out latency for each subscriber count, every available target in one run.
run_fanout() {
  local watchers label entry name side mode
  local -a targets=()
  FANOUT_SKIPPED=()
  for entry in "${FANOUT_TARGETS[@]}"; do
    IFS='|' read -r name side mode _ <<<"$entry"
    if [[ $side == ours ]] && ! ours_delivers "$mode"; then
      bench_log "fanout: ours does not deliver '$mode' notifications yet; left out"
      FANOUT_SKIPPED+=("$name")
      continue
    fi
    targets+=(--target "$name=${BENCH_PORT[$side]}:$mode")
  done
  # The probe may have turned notifications on; each keyspace target turns them on itself.
  bench_cli ours config set notify-keyspace-events "" >/dev/null
  for watchers in "${FANOUT_WATCHERS[@]}"; do
    label="fanout-$watchers"
    bench_log "fanout: $watchers subscribers, ${FANOUT_CHANGES[$watchers]} changes per target"
    run_tool "$label" 600 fanout --watchers "$watchers" --changes "${FANOUT_CHANGES[$watchers]}" \
      --pause-us "$FANOUT_PAUSE_US" --max-seconds 480 --key pbench:fanout "${targets[@]}"
    require_alive ours "the fan-out with $watchers subscribers"
    require_alive redis "the fan-out with $watchers subscribers"
    sed 's/^/  /' "$WORK/$label.out" >&2
  done
  # Notifications off again, so that the parts after this one do not pay for them.
  bench_cli ours config set notify-keyspace-events "" >/dev/null
  bench_cli redis config set notify-keyspace-events "" >/dev/null
}

# Part 3, one measurement: SIDE in shape number IDX.
measure_sub_memory() {
  local side=$1 idx=$2 label mode conns keys layout name m0 m1 m2 m3 pairs unique field_name
  local count
  IFS='|' read -r label mode conns keys layout <<<"${MEMORY_SHAPES[idx]}"
  name="mem-$side-$idx"
  pairs=$((conns * keys))
  if [[ $layout == shared ]]; then unique=$keys; else unique=$pairs; fi
  if [[ $mode == psubscribe ]]; then field_name=pubsub_patterns; else field_name=pubsub_channels; fi
  bench_log "memory: $side, $label"
  m0=$(used_memory "$side")
  hold_start "$name" "$side" --mode "$mode" --conns "$conns" --keys "$keys" --layout "$layout" \
    --batch "$MEMORY_BATCH" --prefix "mem$idx:"
  sleep "$MEMORY_SETTLE_S"
  m1=$(used_memory "$side")
  hold_register "$name" "$side"
  sleep "$MEMORY_SETTLE_S"
  m2=$(used_memory "$side")
  count=$(bench_info_field "$side" stats "$field_name")
  [[ $count == "$unique" ]] ||
    die "$side reports $field_name:$count in INFO, expected $unique"
  hold_release
  sleep "$MEMORY_SETTLE_S"
  m3=$(used_memory "$side")
  require_alive "$side" "the memory measurement"
  MEM["$side,$idx"]="$m0 $m1 $m2 $m3 $pairs $(field "$(result_line "$WORK/$name.out" "$name")" \
    seconds)"
  bench_log "memory: $side: used_memory $m0 -> connected $m1 -> subscribed $m2 ->" \
    "released $m3"
}

run_memory() {
  local idx
  for idx in "${!MEMORY_SHAPES[@]}"; do
    measure_sub_memory ours "$idx"
    measure_sub_memory redis "$idx"
  done
}

# Part 4: redis-benchmark on ours and on the build without the feature, order rotating.
run_idle() {
  local round idx i side sides=(ours base) label pipeline name requests step=0 steps
  # A fresh instance of ours: the parts before leave emptied tables (and Redis, for one, walks
  # an emptied pattern table's buckets on every publish), which is not the unused case.
  bench_stop ours
  bench_start ours "$OURS" || die "could not restart our server '$OURS'"
  bench_probe_cpu_source ours
  steps=$((${#IDLE_TESTS[@]} * ROUNDS * 2))
  for ((round = 0; round < ROUNDS; round++)); do
    for idx in "${!IDLE_TESTS[@]}"; do
      IFS='|' read -r label pipeline name <<<"${IDLE_TESTS[idx]}"
      if ((pipeline > 1)); then requests=$IDLE_REQUESTS_PIPELINED; else requests=$IDLE_REQUESTS; fi
      for ((i = 0; i < 2; i++)); do
        side=${sides[(i + round) % 2]}
        redis_benchmark_run "$side" "$label" "$pipeline" "$name" "$requests"
        IDLE_RPS["$idx,$side"]+=" $RUN_RPS"
        [[ -n $RUN_US ]] && IDLE_CPU["$idx,$side"]+=" $RUN_US"
        step=$((step + 1))
        bench_log "$(printf 'idle [%2d/%d] %-10s %-6s %10.0f rps  %s us/req' "$step" "$steps" \
          "$label" "$side" "$RUN_RPS" "${RUN_US:-n/a}")"
      done
    done
  done
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

report_publish() {
  local n p o r od rd ratio_v bad_o bad_r v co cr
  echo "## 1. PUBLISH throughput (one channel, RESP2 subscribers, median of $ROUNDS rounds)"
  echo
  echo "| subscribers | pipeline | messages | ours published/s | redis published/s |" \
    "ours delivered/s | redis delivered/s | ours/redis | goal | result | losses ours |" \
    "losses redis | CPU us/delivery ours | redis | CPU ours/redis |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|"
  for n in "${PUBLISH_SUBSCRIBERS[@]}"; do
    for p in "${PUBLISH_PIPELINES[@]}"; do
      # shellcheck disable=SC2086  # the tables hold space-separated lists
      o=$(median ${PUB_RATE["$n,$p,ours"]:-})
      # shellcheck disable=SC2086
      r=$(median ${PUB_RATE["$n,$p,redis"]:-})
      # shellcheck disable=SC2086
      od=$(median ${PUB_DELIVERED["$n,$p,ours"]:-})
      # shellcheck disable=SC2086
      rd=$(median ${PUB_DELIVERED["$n,$p,redis"]:-})
      ratio_v=$(ratio "$o" "$r")
      # shellcheck disable=SC2086
      co=$(median ${PUB_CPU["$n,$p,ours"]:-})
      # shellcheck disable=SC2086
      cr=$(median ${PUB_CPU["$n,$p,redis"]:-})
      bad_o=${PUB_BAD["$n,$p,ours"]:-0}
      bad_r=${PUB_BAD["$n,$p,redis"]:-0}
      v=$(verdict "$ratio_v" 1.0 ge)
      ((bad_o == 0)) || v="$v, **messages lost or misordered**"
      echo "| $n | $p | ${PUB_MESSAGES["$n,$p"]:-} | $(fmt '%.0f' "$o") | $(fmt '%.0f' "$r") |" \
        "$(fmt '%.0f' "$od") | $(fmt '%.0f' "$rd") | $ratio_v | >= 1.0 | $v | $bad_o |" \
        "$bad_r | $(fmt '%.3f' "$co") | $(fmt '%.3f' "$cr") | $(ratio "$co" "$cr") |"
    done
  done
  echo
  echo "published/s: messages / (first send to last PUBLISH reply); delivered/s: messages x"
  echo "subscribers / (first send to the last subscriber's last message). Losses: messages lost,"
  echo "out of order, PUBLISH replies other than the subscriber count, and subscribers the server"
  echo "disconnected, summed over the rounds. The publisher stays within 1,000 messages of the"
  echo "slowest subscriber. CPU: the server's user+system time per delivered message (median),"
  echo "steadier than rates on a shared machine. Every round (published/s, ours | redis):"
  echo
  for n in "${PUBLISH_SUBSCRIBERS[@]}"; do
    for p in "${PUBLISH_PIPELINES[@]}"; do
      echo "- $n subscribers -P $p:${PUB_RATE["$n,$p,ours"]:-} |${PUB_RATE["$n,$p,redis"]:-}"
    done
  done
  echo
}

report_fanout() {
  local watchers entry name side mode what line r_p99 o_p99 r v reference
  echo "## 2. Fan-out latency (one key, writer alternates SET/DEL or PUBLISHes, $FANOUT_PAUSE_US" \
    "us pause)"
  echo
  echo "Latency per (change, subscriber) pair, from just before the writer sends to the"
  echo "subscriber's read of the message; all targets interleaved change by change. Each of ours"
  echo "is compared with Redis's row of the same kind (keyspace events for keyspace and"
  echo "existence events, PUBLISH for PUBLISH)."
  echo
  echo "| subscribers | server | notification | changes | pairs | p50 us | p90 us | p99 us |" \
    "max us | lost | disorder | unexpected | p99 / Redis p99 | goal | result |"
  echo "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"
  for watchers in "${FANOUT_WATCHERS[@]}"; do
    for entry in "${FANOUT_TARGETS[@]}"; do
      IFS='|' read -r name side mode what <<<"$entry"
      line=$(result_line "$WORK/fanout-$watchers.out" "$name")
      [[ -n $line ]] || continue
      if [[ $mode == publish ]]; then reference="redis-publish"; else reference="redis-keyspace"; fi
      r_p99=$(field "$(result_line "$WORK/fanout-$watchers.out" "$reference")" p99_us)
      o_p99=$(field "$line" p99_us)
      if [[ $side == redis ]]; then
        r="" v=reference
      else
        r=$(ratio "$o_p99" "$r_p99")
        v=$(verdict "$r" 1.0 le)
      fi
      if [[ $(field "$line" lost)$(field "$line" disorder)$(field "$line" unexpected) != 000 ]]
      then
        v="$v, **notifications lost or misordered**"
      fi
      echo "| $watchers | $side | $what | $(field "$line" changes) | $(field "$line" n) |" \
        "$(field "$line" p50_us) | $(field "$line" p90_us) | $o_p99 | $(field "$line" max_us) |" \
        "$(field "$line" lost) | $(field "$line" disorder) | $(field "$line" unexpected) |" \
        "${r:-} | $([[ $side == redis ]] || echo 'p99 <= Redis') | $v |"
    done
  done
  echo
  if ((${#FANOUT_SKIPPED[@]} > 0)); then
    echo "Left out (our server did not deliver them when probed): ${FANOUT_SKIPPED[*]}."
    echo
  fi
  echo "One thread reads all subscriber sockets in turn, so the figures include the sweep over"
  echo "W sockets, the same for every server."
  echo
}

report_memory() {
  local idx label mode side m0 m1 m2 m3 pairs seconds per_o per_r r v
  echo "## 3. Memory per subscription (used_memory)"
  echo
  echo "| shape | kind | pairs | ours B per pair | redis B per pair | ours/redis | goal |" \
    "result | ours subscribe s | redis subscribe s | ours after release - before |" \
    "redis after release - before |"
  echo "|---|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|"
  for idx in "${!MEMORY_SHAPES[@]}"; do
    IFS='|' read -r label mode _ <<<"${MEMORY_SHAPES[idx]}"
    read -r m0 m1 m2 m3 pairs seconds <<<"${MEM["ours,$idx"]}"
    per_o=$(awk -v a="$m1" -v b="$m2" -v n="$pairs" 'BEGIN { printf "%.1f", (b - a) / n }')
    local o_release=$((m3 - m0)) o_seconds=$seconds
    read -r m0 m1 m2 m3 pairs seconds <<<"${MEM["redis,$idx"]}"
    per_r=$(awk -v a="$m1" -v b="$m2" -v n="$pairs" 'BEGIN { printf "%.1f", (b - a) / n }')
    r=$(ratio "$per_o" "$per_r")
    v=$(verdict "$r" 1.0 le)
    echo "| $label | ${mode/psubscribe/pattern} | $pairs | $per_o | $per_r | $r | <= Redis |" \
      "$v | $o_seconds | $seconds | $o_release | $((m3 - m0)) |"
  done
  echo
  echo "B per pair = (after subscribing - after the connections' first PING) / pairs, names sent"
  echo "$MEMORY_BATCH per command, each sample taken $MEMORY_SETTLE_S s after the step; each server's INFO"
  echo "pubsub_channels / pubsub_patterns is checked against the shape. \"after release -"
  echo "before\": memory still held once every subscription and connection is gone."
  echo
}

report_idle() {
  local idx label o b co cb cpu_change v requests pipeline
  echo "## 4. Cost when unused (redis-benchmark -c $BENCH_CLIENTS -r $BENCH_KEYSPACE, median of" \
    "$ROUNDS rounds)"
  echo
  echo "ours: notifications off, no subscriber; base: \`$BASE\`."
  echo
  echo "| test | requests | ours rps | base rps | ours/base | goal | result | CPU us/req ours |" \
    "base | CPU/req ours vs base |"
  echo "|---|---:|---:|---:|---:|---|---|---:|---:|---:|"
  for idx in "${!IDLE_TESTS[@]}"; do
    IFS='|' read -r label pipeline _ <<<"${IDLE_TESTS[idx]}"
    if ((pipeline > 1)); then requests=$IDLE_REQUESTS_PIPELINED; else requests=$IDLE_REQUESTS; fi
    # shellcheck disable=SC2086  # the tables hold space-separated lists
    o=$(median ${IDLE_RPS["$idx,ours"]:-})
    # shellcheck disable=SC2086
    b=$(median ${IDLE_RPS["$idx,base"]:-})
    # shellcheck disable=SC2086
    co=$(median ${IDLE_CPU["$idx,ours"]:-})
    # shellcheck disable=SC2086
    cb=$(median ${IDLE_CPU["$idx,base"]:-})
    cpu_change=$(awk -v a="$cb" -v b="$co" \
      'BEGIN { if (a + 0 > 0 && b != "") printf "%+.1f%%", (b / a - 1) * 100 }')
    v=$(verdict "$(ratio "$o" "$b")" 0.95 ge)
    echo "| $label | $requests | $(fmt '%.0f' "$o") | $(fmt '%.0f' "$b") | $(ratio "$o" "$b") |" \
      "within noise (>= 0.95) | $v | $(fmt '%.2f' "$co") | $(fmt '%.2f' "$cb") |" \
      "${cpu_change:-n/a} |"
  done
  echo
  echo "Every round, requests/s (ours | base):"
  echo
  for idx in "${!IDLE_TESTS[@]}"; do
    IFS='|' read -r label _ <<<"${IDLE_TESTS[idx]}"
    echo "- $label:${IDLE_RPS["$idx,ours"]:-} |${IDLE_RPS["$idx,base"]:-}"
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
  local redis=/usr/bin/redis-server rounds="" only="publish,fanout,memory,idle" parts=""
  local command_line part started start_s load_avg stamp report_file version_o version_r
  command_line=$(printf '%q ' "$0" "$@")
  declare -gA MEM=() IDLE_RPS=() IDLE_CPU=() FANOUT_CHANGES=() PUB_RATE=() PUB_DELIVERED=()
  declare -gA PUB_BAD=() PUB_MESSAGES=() PUB_CPU=()
  declare -ga FANOUT_SKIPPED=()
  OURS="$ROOT/src/redis-server" BASE="" QUICK=0
  while (($# > 0)); do
    case $1 in
      --ours) need_value "$1" "${2-}" '.'; OURS=$2; shift ;;
      --redis) need_value "$1" "${2-}" '.'; redis=$2; shift ;;
      --base) need_value "$1" "${2-}" '.'; BASE=$2; shift ;;
      --rounds) need_value "$1" "${2-}" '^[1-9][0-9]?$'; rounds=$2; shift ;;
      --only)
        need_value "$1" "${2-}" "^$PARTS_RE(,$PARTS_RE)*\$"
        only=$2; shift ;;
      --quick) QUICK=1 ;;
      -h | --help) usage 0 ;;
      *) bench_log "bench-pubsub: unknown argument '$1'"; usage ;;
    esac
    shift
  done
  if ((QUICK)); then
    FANOUT_CHANGES=([100]=200 [1000]=40) ROUNDS=${rounds:-2}
    IDLE_REQUESTS=50000 IDLE_REQUESTS_PIPELINED=300000
  else
    FANOUT_CHANGES=([100]=1000 [1000]=200) ROUNDS=${rounds:-5}
    IDLE_REQUESTS=100000 IDLE_REQUESTS_PIPELINED=1000000
  fi
  for tool in redis-cli redis-benchmark timeout awk g++ mkfifo; do
    command -v "$tool" >/dev/null || die "'$tool' not found"
  done
  # The servers start in scratch directories, so relative paths would break.
  [[ $OURS == /* ]] || OURS="$PWD/$OURS"
  [[ $redis == /* ]] || redis="$PWD/$redis"
  [[ -z $BASE || $BASE == /* ]] || BASE="$PWD/$BASE"
  [[ -x $redis ]] || die "Debian's redis-server is not at '$redis'"
  [[ -x $OURS ]] || die "our server '$OURS' is missing or not executable; build it first"
  [[ -z $BASE || -x $BASE ]] || die "the base server '$BASE' is missing or not executable"
  for part in publish fanout memory idle; do
    [[ ,$only, == *",$part,"* ]] || continue
    if [[ $part == idle && -z $BASE ]]; then
      bench_log "bench-pubsub: part 4 (idle) needs --base PATH; skipped"
      continue
    fi
    parts+=" $part"
  done

  HOLD_PID="" HOLD_FD=""
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-pubsub.XXXXXX")
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  start_s=$(date +%s)
  started=$(date '+%Y-%m-%d %H:%M:%S %Z')
  stamp=$(date '+%Y%m%d-%H%M%S')
  load_avg=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

  coord_tool_build || die "the load tool did not compile"
  raise_fd_limit
  bench_start ours "$OURS" || die "could not start our server '$OURS'"
  bench_probe_cpu_source ours
  version_o=$(bench_info_field ours server redis_version)
  if [[ $parts == *[a-z]* && $parts != " idle" ]]; then
    bench_start redis "$redis" || die "could not start Redis '$redis'"
    bench_probe_cpu_source redis
    version_r=$(bench_info_field redis server redis_version)
  fi
  if [[ $parts == *idle* ]]; then
    bench_start base "$BASE" || die "could not start the base server '$BASE'"
    bench_probe_cpu_source base
  fi
  bench_log "bench-pubsub: ours on port ${BENCH_PORT[ours]}, open-file limit $(ulimit -Sn)," \
    "parts:$parts"

  for part in $parts; do "run_$part"; done
  local elapsed=$(($(date +%s) - start_s))

  mkdir -p "$ROOT/utils/bench-results"
  report_file="$ROOT/utils/bench-results/pubsub-$stamp.md"
  {
    echo "# Pub/Sub and keyspace notifications: redis-tp vs Redis 7.0"
    echo
    echo "- date: $started; the run took ${elapsed} s"
    echo "- command: \`${command_line% }\`"
    echo "- ours: \`$OURS\` (redis_version ${version_o:-unknown})"
    echo "- redis: \`$redis\` (redis_version ${version_r:-unknown})"
    echo "- machine: $(nproc) cores, load average at start $load_avg; loopback only"
    echo "- figures are for comparison within this run (ratios), not absolute capacity"
    echo
    for part in $parts; do "report_$part"; done
  } | tee "$report_file"
  bench_log "bench-pubsub: report saved to $report_file (run took ${elapsed} s)"
}

main "$@"
