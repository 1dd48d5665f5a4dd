#!/usr/bin/env bash
# Hash-field expiration: memory per field and throughput, for one or two redis-tp binaries
# (e.g. the build before and after a change).
#
# Usage: utils/bench-hash-field-ttl.sh [SERVER ...]     (default: build/release/redis-server)
#
# Memory. For each server, on a fresh instance each time: 100,000 fields `field:<i>` =
# `value:<i>` loaded with `redis-cli --pipe` (HSET in batches of 100), in two shapes: 2,000 hashes
# of 50 fields (listpack) and 10 hashes of 10,000 (hashtable); then again with HEXPIRE 100000 on
# every field (rows "timed"; a server without HEXPIRE gets none). Reported: the growth of
# used_memory per field, and MEMORY USAGE hash:1 SAMPLES 0.
# Throughput. redis-benchmark -P 16 -n 1000000 -r 100000 on one hash of 100,000 fields: HSET,
# HEXPIRE 1000 FIELDS 1, HGET of a hash with every field timed and of one without, HTTL.
# Servers listen on 127.0.0.1 ports 23480-23489 and are stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
servers=("$@")
[ ${#servers[@]} -eq 0 ] && servers=(build/release/redis-server)
port=23480

start() {  # start BINARY: runs it on $port, sets $pid
  "$1" --port $port --bind 127.0.0.1 --save '' --appendonly no --daemonize no >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 50); do redis-cli -p $port ping >/dev/null 2>&1 && return; sleep 0.1; done
  echo "server $1 did not start" >&2
  exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }
used() { redis-cli -p $port info memory | tr -d '\r' | sed -n 's/^used_memory://p'; }

load() {  # load KEYS PER TIMED
  python3 - "$@" <<'PY' | redis-cli -p $port --pipe >/dev/null
import sys
keys, per, timed = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
def cmd(args):
    return "*%d\r\n" % len(args) + "".join("$%d\r\n%s\r\n" % (len(a), a) for a in args)
out = []
for k in range(keys):
    for s in range(0, per, 100):
        fields = ["field:%06d" % f for f in range(s, min(per, s + 100))]
        args = ["HSET", "hash:%d" % k]
        for f in fields:
            args += [f, f.replace("field", "value")]
        out.append(cmd(args))
        if timed:
            out.append(cmd(["HEXPIRE", "hash:%d" % k, "100000", "FIELDS", str(len(fields))] + fields))
sys.stdout.write("".join(out))
PY
}

echo "| server | shape | bytes/field | MEMORY USAGE hash:1 | encoding |"
echo "|---|---|---:|---:|---|"
for bin in "${servers[@]}"; do
  for shape in "2000 50" "10 10000"; do
    for timed in 0 1; do
      start "$bin"
      if [ $timed = 1 ] && [[ "$(redis-cli -p $port command info hexpire)" == "" ]]; then
        stop
        continue
      fi
      base=$(used)
      read -r keys per <<<"$shape"
      load "$keys" "$per" $timed
      after=$(used)
      mu=$(redis-cli -p $port memory usage hash:1 samples 0)
      enc=$(redis-cli -p $port object encoding hash:1)
      label="${keys}x${per}$([ $timed = 1 ] && echo ', timed' || true)"
      echo "| $bin | $label | $(((after - base) / (keys * per))) | $mu | $enc |"
      stop
    done
  done
done

echo
for bin in "${servers[@]}"; do
  start "$bin"
  if [[ "$(redis-cli -p $port command info hexpire)" == "" ]]; then stop; continue; fi
  echo "$bin:"
  b() { redis-benchmark -p $port -P 16 -n 1000000 -q -r 100000 "$@" 2>&1 | tr '\r' '\n' |
        grep 'per second' | sed 's/^/  /'; }
  b hset plain f:__rand_int__ v
  b hset timed f:__rand_int__ v
  b hexpire timed 1000 FIELDS 1 f:__rand_int__
  b hget plain f:__rand_int__
  b hget timed f:__rand_int__
  b httl timed FIELDS 1 f:__rand_int__
  stop
done
