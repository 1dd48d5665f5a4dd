#!/usr/bin/env bash
# What an ACL user with 20 rules costs each command, redis-tp against Debian's Redis 7.0.
#
# Usage: utils/bench-acl.sh [--ours PATH] [--redis PATH] [--requests N] [--rounds N]
#   --ours PATH     server under test (default: src/redis-server in this repository)
#   --redis PATH    reference server (default: /usr/bin/redis-server)
#   --requests N    requests per run (default 1000000)
#   --rounds N      runs per side and user (default 3); the median is reported
# Environment: BENCH_SERVER_CPUS / BENCH_CLIENT_CPUS (taskset core lists) pin the servers and
# redis-benchmark apart, e.g. BENCH_SERVER_CPUS=1 BENCH_CLIENT_CPUS=0.
#
# Method. Both servers run at once on free loopback ports with persistence off. Each gets the
# same user `bench`, defined by 20 rules: a password, a reset of keys and channels, ten key
# patterns of which only the last matches redis-benchmark's keys (`key:*`, so every command
# walks the whole list before it is allowed), two channel patterns, and command rules that
# subtract categories and then add some back. redis-benchmark (-c 50, -P 16, -r 100000, SET and
# GET) runs once as the default user (no rules: everything allowed) and once as `bench`,
# alternating between the servers so that whatever else the machine does lands on both alike.
# The server's own CPU time is sampled around each run (INFO cpu), which gives microseconds per
# request, a figure that machine noise disturbs less than requests per second. The goal: the
# user with 20 rules costs redis-tp at most 3% of throughput against the default user.
#
# The report is markdown on stdout; progress goes to stderr. Exit status: 0 when every step ran,
# 1 when a server died or a step failed, 2 on bad usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-acl
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"

usage() { bench_usage 4 10 "${1:-2}"; }
bench_parse_pair_options "$@"


trap bench_stop_all EXIT
bench_start ours "$OURS" || die "could not start $OURS"
bench_start redis "$REDIS" || die "could not start $REDIS"
for side in ours redis; do
  bench_probe_cpu_source "$side"
  reply=$(bench_cli "$side" acl setuser bench "${BENCH_ACL_RULES[@]}" | tr -d '\r')
  [[ $reply == OK ]] || die "ACL SETUSER on $side answered: $reply"
  reply=$(timeout 10 redis-cli -h 127.0.0.1 -p "${BENCH_PORT[$side]}" --user bench \
    --pass bench-pass --no-auth-warning set key:probe 1 | tr -d '\r')
  [[ $reply == OK ]] || die "the bench user cannot SET key:probe on $side: $reply"
done

# One redis-benchmark run; prints "req_per_sec us_per_req" for test $3 (set or get).
run_one() {
  local side=$1 user=$2 test=$3 auth=()
  [[ $user == bench ]] && auth=(--user bench -a bench-pass)
  bench_p16_run "$side" "$test as $user" "$test" -p "${BENCH_PORT[$side]}" "${auth[@]}"
}

declare -A RPS=() CPU=()
for ((round = 1; round <= ROUNDS; round++)); do
  for test in set get; do
    for user in default bench; do
      for side in ours redis; do
        read -r r c < <(run_one "$side" "$user" "$test")
        RPS[$side.$user.$test]+="$r "
        CPU[$side.$user.$test]+="$c "
        bench_log "round $round $test $side as $user: $r req/s, $c us/req"
      done
    done
  done
done

echo "# ACL cost: a user with ${#BENCH_ACL_RULES[@]} rules against the default user"
echo
echo "\`redis-benchmark -c 50 -P 16 -r 100000 -n $REQUESTS -t set|get\`, $ROUNDS rounds, medians;"
echo "rules: \`${BENCH_ACL_RULES[*]}\`"
echo
echo "| server | test | default req/s | bench req/s | bench/default | default us/req | bench us/req |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for side in ours redis; do
  for test in set get; do
    # shellcheck disable=SC2086
    d=$(median ${RPS[$side.default.$test]}) b=$(median ${RPS[$side.bench.$test]})
    # shellcheck disable=SC2086
    dc=$(median ${CPU[$side.default.$test]}) bc=$(median ${CPU[$side.bench.$test]})
    name=redis-tp
    [[ $side == redis ]] && name="Redis 7.0"
    echo "| $name | ${test^^} | $(fmt %.0f "$d") | $(fmt %.0f "$b") | $(ratio "$b" "$d") |" \
      "$(fmt %.3f "$dc") | $(fmt %.3f "$bc") |"
  done
done
