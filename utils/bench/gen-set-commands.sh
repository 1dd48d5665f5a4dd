#!/usr/bin/env bash
# Writes COUNT SET commands in RESP to stdout, ready for `redis-cli --pipe`.
#
# Usage: utils/bench/gen-set-commands.sh COUNT [PREFIX] [VALUE]
#   Keys are PREFIX followed by the index padded to ten digits, counting from 1 (with the
#   default prefix: key:0000000001, key:0000000002, ...); every key gets the same VALUE
#   (default "val"). The stream is plain RESP arrays of bulk strings, so the length of each
#   key is written once here and stays right for every index below ten billion.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 3 || ! $1 =~ ^[0-9]+$ ]]; then
  echo "usage: $0 COUNT [PREFIX] [VALUE]" >&2
  exit 2
fi

LC_ALL=C awk -v n="$1" -v prefix="${2-key:}" -v value="${3-val}" 'BEGIN {
  head = sprintf("*3\r\n$3\r\nSET\r\n$%d\r\n%s", length(prefix) + 10, prefix)
  tail = sprintf("\r\n$%d\r\n%s\r\n", length(value), value)
  for (i = 1; i <= n; i++) printf "%s%010d%s", head, i, tail
}'
