#!/usr/bin/env bash
# Writes RESP commands that fill one aggregate key with COUNT elements, for `redis-cli --pipe`.
#
# Usage: utils/bench/gen-fill-commands.sh KIND KEY COUNT
#   KIND is list (RPUSH), set (SADD), hash (HSET) or zset (ZADD). Element i (counting from 1) is
#   "element:i"; a hash maps it to "value:i", a sorted set gives it the score i. Each command
#   carries up to 100 elements, so COUNT elements take ceil(COUNT / 100) replies.
set -euo pipefail

if [[ $# -ne 3 || ! $1 =~ ^(list|set|hash|zset)$ || ! $3 =~ ^[0-9]+$ ]]; then
  echo "usage: $0 list|set|hash|zset KEY COUNT" >&2
  exit 2
fi

LC_ALL=C awk -v kind="$1" -v key="$2" -v n="$3" '
function bulk(s) { return sprintf("$%d\r\n%s\r\n", length(s), s) }
BEGIN {
  verb = kind == "list" ? "RPUSH" : kind == "set" ? "SADD" : kind == "hash" ? "HSET" : "ZADD"
  per = kind == "hash" || kind == "zset" ? 2 : 1
  for (first = 1; first <= n; first += 100) {
    last = first + 99 > n ? n : first + 99
    printf "*%d\r\n%s%s", 2 + per * (last - first + 1), bulk(verb), bulk(key)
    for (i = first; i <= last; i++) {
      if (kind == "zset") printf "%s", bulk(i)
      printf "%s", bulk("element:" i)
      if (kind == "hash") printf "%s", bulk("value:" i)
    }
  }
}'
