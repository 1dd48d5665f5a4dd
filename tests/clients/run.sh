#!/usr/bin/env bash
# Runs the client-library checks of tests/clients/ against a server binary: each *.py is a
# program (Debian's python3-redis) that starts the servers it needs and asserts its own outcome,
# printing "ok: ..." and exiting 0 on success (each *.js the same, run by node when it finds
# ioredis); each is bounded by `timeout`. One "[ok]: ..." or
# "[err]: ..." line per program; a program needing a tool the machine lacks (Debian's Sentinel:
# /usr/bin/redis-server or redis-sentinel) is reported as "[skip]: ...". Exits non-zero if
# anything failed.
# Usage: tests/clients/run.sh SERVER_BINARY
set -u
# Absolute, but not through symlinks: Debian's redis-server is a link whose name picks the program.
server=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/../.."
python=/usr/bin/python3
failed=0
for check in tests/clients/*.py; do
  name=$(basename "$check" .py)
  if [[ $name == sentinel* && ! -x /usr/bin/redis-server && ! -x /usr/bin/redis-sentinel ]]; then
    echo "[skip]: client $name (no Debian Redis for Sentinel)"
    continue
  fi
  out=$(timeout 180 "$python" "$check" "$server" 2>&1)
  rc=$?
  if [[ $rc -eq 0 && $out == ok:* ]]; then
    echo "[ok]: client ${out#ok: }"
  else
    echo "[err]: client $name (exit $rc)"
    echo "$out" | tail -30 | sed 's/^/    /'
    failed=1
  fi
done
# Node checks (*.js) need their library (ioredis): run when node resolves it from NODE_PATH or a
# node_modules beside them (npm install ioredis in tests/clients), else reported as skipped.
export NODE_PATH=${NODE_PATH:-$PWD/tests/clients/node_modules}
for check in tests/clients/*.js; do
  [[ -e $check ]] || continue
  name=$(basename "$check" .js)
  if ! command -v node >/dev/null || ! node -e "require.resolve('ioredis')" 2>/dev/null; then
    echo "[skip]: client $name (no node or no ioredis)"
    continue
  fi
  out=$(timeout 120 node "$check" "$server" 2>&1)
  rc=$?
  if [[ $rc -eq 0 && $out == ok:* ]]; then
    echo "[ok]: client ${out#ok: }"
  else
    echo "[err]: client $name (exit $rc)"
    echo "$out" | tail -30 | sed 's/^/    /'
    failed=1
  fi
done
exit $failed
