#!/usr/bin/env bash
# What latency tracking and ACL users cost, redis-tp against Debian's Redis 7.0: throughput
# with `latency-tracking yes` against `no`, and the memory of latency histograms and of users.
#
# Usage: utils/bench-latency.sh [--ours PATH] [--redis PATH] [--requests N] [--rounds N]
#   --ours PATH     server under test (default: src/redis-server in this repository)
#   --redis PATH    reference server (default: /usr/bin/redis-server)
#   --requests N    requests per -P 16 run; a -P 1 run makes a fifth of them (default 1000000)
#   --rounds N      runs per side, test and setting (default 3); the median is reported
# Environment: BENCH_SERVER_CPUS / BENCH_CLIENT_CPUS (taskset core lists) pin the servers and
# redis-benchmark apart, e.g. BENCH_SERVER_CPUS=1 BENCH_CLIENT_CPUS=0.
#
# Method. Both servers run at once on free loopback ports with persistence off. Throughput:
# redis-benchmark (-c 50, -r 100000) runs SET and GET at pipeline depths 16 and 1, once with
# latency-tracking on (Redis 7.0's default: every command's duration goes into a histogram of
# its own) and once off, switched by CONFIG SET between runs, alternating between the servers
# so that whatever else the machine does lands on both alike. The server's own CPU time
# around each run (INFO cpu) gives microseconds per request, which machine noise disturbs
# less than requests per second.
# Memory, each measured as the growth of used_memory on a freshly flushed server, with the
# same work done once with the feature and once without, so that only the feature's own
# bytes remain in the difference:
#  - latency histograms: one call each of 50 distinct commands (reads, writes, admin) with
#    latency-tracking yes, minus the same calls with it off;
#  - ACL users: 100 users of 20 rules each (bench-acl.sh's rules), minus nothing (ACL SETUSER
#    allocates nothing else), then ACL DELUSER of them all.
#
# The report is markdown on stdout; progress goes to stderr. Exit status: 0 when every step ran,
# 1 when a server died or a step failed, 2 on bad usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-latency
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"

usage() { bench_usage 4 11 "${1:-2}"; }
bench_parse_pair_options "$@"


# 50 distinct commands, one line each, every one valid on an empty database after the lines
# before it (the keys they make are the same with tracking on and off).
readonly COMMANDS=(
  'set s:1 v' 'get s:1' 'append s:1 x' 'strlen s:1' 'getrange s:1 0 1' 'setrange s:1 0 y'
  'incr n:1' 'incrby n:1 2' 'decr n:1' 'decrby n:1 2' 'incrbyfloat n:2 1.5' 'mset a 1 b 2'
  'mget a b' 'setnx s:2 v' 'getset s:2 w' 'getdel s:2' 'exists a' 'type a' 'ttl a' 'pttl a'
  'expire a 100' 'persist a' 'rename b c' 'lpush l:1 a b c' 'rpush l:1 d' 'lrange l:1 0 -1'
  'llen l:1' 'lpop l:1' 'rpop l:1' 'lindex l:1 0' 'sadd z:1 a b' 'smembers z:1' 'scard z:1'
  'sismember z:1 a' 'srem z:1 a' 'hset h:1 f v' 'hget h:1 f' 'hgetall h:1' 'hlen h:1'
  'hdel h:1 f' 'zadd o:1 1 a 2 b' 'zrange o:1 0 -1' 'zscore o:1 a' 'zcard o:1' 'zrem o:1 a'
  'dbsize' 'ping' 'echo hi' 'time' 'lastsave')

trap bench_stop_all EXIT
bench_start ours "$OURS" || die "could not start $OURS"
bench_start redis "$REDIS" || die "could not start $REDIS"
for side in ours redis; do bench_probe_cpu_source "$side"; done

used_memory() { bench_info_field "$1" memory used_memory | tr -d '\r'; }

# Prints the growth of used_memory when the 50 commands run on SIDE with tracking TRACK.
histogram_bytes_with() {
  local side=$1 track=$2 before after line
  bench_cli "$side" config set latency-tracking "$track" >/dev/null
  bench_cli "$side" flushall >/dev/null
  bench_cli "$side" config resetstat >/dev/null
  before=$(used_memory "$side")
  for line in "${COMMANDS[@]}"; do
    # shellcheck disable=SC2086  # a line is its words
    bench_cli "$side" $line >/dev/null
  done
  after=$(used_memory "$side")
  echo $((after - before))
}

# Prints the growth of used_memory when 100 users of 20 rules are made on SIDE (and removes
# them again).
acl_bytes() {
  local side=$1 before after i
  bench_cli "$side" flushall >/dev/null
  before=$(used_memory "$side")
  for ((i = 0; i < 100; i++)); do
    [[ $(bench_cli "$side" acl setuser "user$i" "${BENCH_ACL_RULES[@]}") == OK ]] ||
      die "ACL SETUSER failed on $side"
  done
  after=$(used_memory "$side")
  for ((i = 0; i < 100; i++)); do bench_cli "$side" acl deluser "user$i" >/dev/null; done
  echo $((after - before))
}

declare -A MEM=()
for side in ours redis; do
  off=$(histogram_bytes_with "$side" no)
  on=$(histogram_bytes_with "$side" yes)
  MEM[$side.hist]=$((on - off))
  MEM[$side.acl]=$(acl_bytes "$side")
  bench_log "$side: histograms ${MEM[$side.hist]} B, 100 users ${MEM[$side.acl]} B"
done

declare -A RPS=() CPU=()
for ((round = 1; round <= ROUNDS; round++)); do
  for depth in 16 1; do
    n=$REQUESTS
    ((depth == 1)) && n=$((REQUESTS / 5))
    for test in set get; do
      for track in yes no; do
        for side in ours redis; do
          bench_cli "$side" config set latency-tracking "$track" >/dev/null
          read -r r c < <(BENCH_DEPTH=$depth BENCH_RUN_REQUESTS=$n bench_p16_run "$side" \
            "$test -P $depth tracking $track" "$test" -p "${BENCH_PORT[$side]}")
          RPS[$side.$depth.$test.$track]+="$r "
          CPU[$side.$depth.$test.$track]+="$c "
          bench_log "round $round $test -P $depth tracking $track $side: $r req/s, $c us/req"
        done
      done
    done
  done
done

echo "# Latency tracking and ACL users: throughput and memory"
echo
echo "\`redis-benchmark -c 50 -r 100000 -t set|get\`, -P 16 with $REQUESTS requests and -P 1"
echo "with $((REQUESTS / 5)), $ROUNDS rounds, medians; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| server | test | tracking yes req/s | tracking no req/s | yes/no | yes us/req | no us/req |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for side in ours redis; do
  for depth in 16 1; do
    for test in set get; do
      k=$side.$depth.$test
      # shellcheck disable=SC2086
      y=$(median ${RPS[$k.yes]}) o=$(median ${RPS[$k.no]})
      # shellcheck disable=SC2086
      yc=$(median ${CPU[$k.yes]}) oc=$(median ${CPU[$k.no]})
      name=redis-tp
      [[ $side == redis ]] && name="Redis 7.0"
      echo "| $name | ${test^^} -P $depth | $(fmt %.0f "$y") | $(fmt %.0f "$o") |" \
        "$(ratio "$y" "$o") | $(fmt %.3f "$yc") | $(fmt %.3f "$oc") |"
    done
  done
done
echo
echo "| memory (used_memory growth) | redis-tp | Redis 7.0 |"
echo "| --- | --- | --- |"
echo "| latency histograms of 50 commands (tracking yes minus no) | ${MEM[ours.hist]} B |" \
  "${MEM[redis.hist]} B |"
echo "| 100 ACL users of ${#BENCH_ACL_RULES[@]} rules | ${MEM[ours.acl]} B | ${MEM[redis.acl]} B |"
