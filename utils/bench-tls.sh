#!/usr/bin/env bash
# TLS throughput, redis-tp against Debian's Redis 7.0, in one run.
#
# Usage: utils/bench-tls.sh [--ours PATH] [--redis PATH] [--requests N] [--rounds N]
#   --ours PATH     server under test (default: src/redis-server in this repository)
#   --redis PATH    reference server (default: /usr/bin/redis-server)
#   --requests N    requests per run (default 1000000)
#   --rounds N      runs per side and test (default 3); the median is reported
#
# Method. A scratch CA signs a server and a client certificate (openssl, 2048-bit RSA). Both
# servers run at once on loopback with a plain port and a TLS port (tls-auth-clients yes, so the
# client presents its certificate; TLSv1.3 is what both negotiate), persistence off.
# redis-benchmark (-c 50, -P 16, -r 100000, SET and GET) runs over TLS and over the plain port,
# alternating between the servers so that whatever else the machine does lands on both alike.
# The server's own CPU time (INFO cpu) around each run gives microseconds per request. The goal:
# TLS SET and GET at least 1.0x Redis's throughput.
#
# The report is markdown on stdout; progress goes to stderr. Exit status: 0 when every step ran,
# 1 when a server died or a step failed, 2 on bad usage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
BENCH_NAME=bench-tls
# shellcheck source=utils/bench/servers.sh
source "$ROOT/utils/bench/servers.sh"

usage() { bench_usage 4 8 "${1:-2}"; }
bench_parse_pair_options "$@"

CERTS=$(mktemp -d "${TMPDIR:-/tmp}/bench-tls-certs.XXXXXX")
declare -A TLS_PORT=() TLS_PID=()
cleanup() {
  local side
  for side in "${!TLS_PID[@]}"; do
    kill -TERM "${TLS_PID[$side]}" 2>/dev/null || true
  done
  bench_stop_all
  rm -rf -- "$CERTS"
}
trap cleanup EXIT

openssl genrsa -out "$CERTS/ca.key" 2048 2>/dev/null
openssl req -x509 -new -nodes -sha256 -key "$CERTS/ca.key" -days 2 \
  -subj /O=redis-tp-bench/CN=ca -out "$CERTS/ca.crt" 2>/dev/null
for name in server client; do
  openssl genrsa -out "$CERTS/$name.key" 2048 2>/dev/null
  openssl req -new -sha256 -key "$CERTS/$name.key" -subj "/O=redis-tp-bench/CN=$name" \
    -out "$CERTS/$name.csr" 2>/dev/null
  openssl x509 -req -sha256 -in "$CERTS/$name.csr" -CA "$CERTS/ca.crt" -CAkey "$CERTS/ca.key" \
    -CAcreateserial -days 2 -out "$CERTS/$name.crt" 2>/dev/null
done
readonly TLS_CLIENT=(--tls --cacert "$CERTS/ca.crt" --cert "$CERTS/client.crt"
  --key "$CERTS/client.key")

# Starts BINARY as SIDE with a plain and a TLS port; the plain port is BENCH_PORT[SIDE], so the
# helpers of servers.sh (INFO, CPU samples) work on it.
start_tls_side() {
  local side=$1 bin=$2 port tport dir waited
  dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-tls-$side.XXXXXX")
  port=$(bench_free_port) || return 1
  BENCH_PORT[$side]=$port
  tport=$(bench_free_port) || return 1
  [[ $tport != "$port" ]] || return 1
  TLS_PORT[$side]=$tport
  (cd "$dir" && exec "$bin" --port "$port" --tls-port "$tport" --bind 127.0.0.1 --save "" \
    --appendonly no --dir "$dir" --tls-cert-file "$CERTS/server.crt" \
    --tls-key-file "$CERTS/server.key" --tls-ca-cert-file "$CERTS/ca.crt") \
    >"$dir/server.log" 2>&1 &
  TLS_PID[$side]=$!
  BENCH_PID[$side]=$!
  BENCH_DIR[$side]=$dir
  BENCH_SIDES+=("$side")
  for ((waited = 0; waited < 100; waited++)); do
    if [[ $(timeout 2 redis-cli -h 127.0.0.1 -p "$tport" "${TLS_CLIENT[@]}" ping 2>/dev/null |
      tr -d '\r') == PONG ]]; then
      return 0
    fi
    sleep 0.1
  done
  bench_log "bench-tls: $side did not answer PING over TLS; its log:"
  tail -5 "$dir/server.log" >&2
  return 1
}

# A drawn port can still be taken when the server binds it (a closing connection of an earlier
# run): a few attempts, as bench_start makes.
start_with_retries() {
  local attempt
  for ((attempt = 1; attempt <= 5; attempt++)); do
    start_tls_side "$1" "$2" && return 0
    kill -TERM "${TLS_PID[$1]:-0}" 2>/dev/null || true
    grep -qi 'address already in use' "${BENCH_DIR[$1]}/server.log" 2>/dev/null || return 1
  done
  return 1
}
start_with_retries ours "$OURS" || die "could not start $OURS with TLS"
start_with_retries redis "$REDIS" || die "could not start $REDIS with TLS"
bench_probe_cpu_source ours
bench_probe_cpu_source redis

# One redis-benchmark run; prints "req_per_sec us_per_req".
run_one() {
  local side=$1 transport=$2 test=$3
  if [[ $transport == tls ]]; then
    bench_p16_run "$side" "$test over tls" "$test" -p "${TLS_PORT[$side]}" "${TLS_CLIENT[@]}"
  else
    bench_p16_run "$side" "$test over plain" "$test" -p "${BENCH_PORT[$side]}"
  fi
}

declare -A RPS=() CPU=()
for ((round = 1; round <= ROUNDS; round++)); do
  for transport in tls plain; do
    for test in set get; do
      for side in ours redis; do
        read -r r c < <(run_one "$side" "$transport" "$test")
        RPS[$side.$transport.$test]+="$r "
        CPU[$side.$transport.$test]+="$c "
        bench_log "round $round $test over $transport, $side: $r req/s, $c us/req"
      done
    done
  done
done

echo "# TLS throughput, redis-tp / Redis 7.0"
echo
echo "\`redis-benchmark -c 50 -P 16 -r 100000 -n $REQUESTS -t set|get\` over TLS (client"
echo "certificate, TLSv1.3) and over the plain port of the same servers; $ROUNDS rounds, medians."
echo
echo "| transport | test | redis-tp req/s | Redis req/s | ratio | redis-tp us/req | Redis us/req | CPU ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for transport in tls plain; do
  for test in set get; do
    # shellcheck disable=SC2086
    o=$(median ${RPS[ours.$transport.$test]}) r=$(median ${RPS[redis.$transport.$test]})
    # shellcheck disable=SC2086
    oc=$(median ${CPU[ours.$transport.$test]}) rc=$(median ${CPU[redis.$transport.$test]})
    echo "| $transport | ${test^^} | $(fmt %.0f "$o") | $(fmt %.0f "$r") | $(ratio "$o" "$r") |" \
      "$(fmt %.3f "$oc") | $(fmt %.3f "$rc") | $(ratio "$oc" "$rc") |"
  done
done
