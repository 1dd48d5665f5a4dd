#!/usr/bin/env bash
# Runs the client-library checks of tests/clients/ against a server binary: each *.py is a
# program (Debian's python3-redis), each *.js a node program (ioredis, found wherever node
# resolves it), that starts the servers it needs and asserts its own outcome, printing "ok: ..."
# and exiting 0 on success, or "skip: ..." (exit 0) when what it checks cannot run here (ioredis
# not installed; a binary that is not redis-tp's for checks of newer servers' options); each is
# bounded by `timeout`. One "[ok]: ...", "[skip]: ..." or "[err]: ..." line per program; a
# Python program needing Debian's Sentinel (/usr/bin/redis-server or redis-sentinel) on a machine
# without it is reported as "[skip]: ...". Exits non-zero if anything failed.
# Python modules whose name starts with "_" (_server.py: free ports, server start-up) are support
# imported by the checks, not checks. Usage: tests/clients/run.sh SERVER_BINARY
set -u
# Absolute, but not through symlinks: Debian's redis-server is a link whose name picks the program.
server=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/../.."
python=/usr/bin/python3
failed=0

# Prints the line of one program's outcome: name, exit status, output.
report() {
  local name=$1 rc=$2 out=$3
  if [[ $rc -eq 0 && $out == ok:* ]]; then
    echo "[ok]: client ${out#ok: }"
  elif [[ $rc -eq 0 && $out == skip:* ]]; then
    echo "[skip]: client ${out#skip: }"
  else
    echo "[err]: client $name (exit $rc)"
    echo "$out" | tail -30 | sed 's/^/    /'
    failed=1
  fi
}

for check in tests/clients/*.py; do
  name=$(basename "$check" .py)
  [[ $name == _* ]] && continue  # shared support (_server.py), not a check
  if [[ $name == sentinel* && ! -x /usr/bin/redis-server && ! -x /usr/bin/redis-sentinel ]]; then
    echo "[skip]: client $name (no Debian Redis for Sentinel)"
    continue
  fi
  out=$(timeout 180 "$python" "$check" "$server" 2>&1)
  report "$name" $? "$out"
done
# Node checks (*.js) need their library (ioredis): node resolves it from NODE_PATH or a
# node_modules beside them (npm install ioredis in tests/clients); a check whose library is
# missing is reported as skipped.
export NODE_PATH=${NODE_PATH:-$PWD/tests/clients/node_modules}
for check in tests/clients/*.js; do
  [[ -e $check ]] || continue
  name=$(basename "$check" .js)
  if ! command -v node >/dev/null || ! node -e "require.resolve('ioredis')" 2>/dev/null; then
    echo "[skip]: client $name (no node or no ioredis)"
    continue
  fi
  out=$(timeout 120 node "$check" "$server" 2>&1)
  report "$name" $? "$out"
done
exit $failed
