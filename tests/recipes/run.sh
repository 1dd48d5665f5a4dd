#!/usr/bin/env bash
# Runs the redis-py recipes of docs/recipes.md against a redis-tp server it starts, one
# "[ok]: ..." or "[err]: ..." line per recipe, and checks that every python block in
# docs/recipes.md is a verbatim piece of one of these files (so the docs show tested code).
# Each recipe asserts its own outcome and exits non-zero on failure; each is bounded by
# `timeout`. Exits non-zero if anything failed.
# Usage: tests/recipes/run.sh SERVER_BINARY
# Needs Debian's python3-redis (deps/install-deps.sh installs it); uses /usr/bin/python3 so
# that a python of another origin earlier on PATH cannot hide it.
set -u
server=$(realpath "$1")
cd "$(dirname "$0")/../.."
python=/usr/bin/python3
failed=0

dir=$(mktemp -d)
port=$($python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$server" --bind 127.0.0.1 --port "$port" --dir "$dir" --save "" --appendonly no \
  --logfile "$dir/log" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do
  redis-cli -p "$port" ping >/dev/null 2>&1 && break
  sleep 0.05
done

for recipe in tests/recipes/*.py; do
  name=$(basename "$recipe" .py)
  out=$(REDISTP_PORT=$port timeout 60 "$python" "$recipe" 2>&1)
  rc=$?
  if [[ $rc -eq 0 && $out == ok:* ]]; then
    echo "[ok]: recipe ${out#ok: }"
  else
    echo "[err]: recipe $name (exit $rc)"
    echo "$out" | tail -15 | sed 's/^/    /'
    failed=1
  fi
done

if blocks=$($python - <<'PY'
import glob, re, sys
doc = open("docs/recipes.md").read()
sources = [open(f).read() for f in sorted(glob.glob("tests/recipes/*.py"))]
blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
stale = [b for b in blocks if not any(b in s for s in sources)]
for b in stale:
    print("    not in tests/recipes: " + b.splitlines()[0])
print(f"{len(blocks)} blocks")
sys.exit(1 if stale or not blocks else 0)
PY
); then
  echo "[ok]: recipe docs: docs/recipes.md shows only tested code (${blocks##*$'\n'})"
else
  echo "[err]: recipe docs: docs/recipes.md has code that no recipe runs"
  echo "$blocks"
  failed=1
fi

if ! kill -0 "$pid" 2>/dev/null; then
  echo "[err]: recipe server: the server died during the recipes"
  tail -20 "$dir/log" | sed 's/^/    /'
  failed=1
fi
exit $failed
