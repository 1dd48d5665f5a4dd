#!/usr/bin/env bash
# Compares redis-tp's configuration with Debian's Redis 7.0: every name CONFIG GET * returns,
# the hidden parameters (asked by exact name), and each default value. Both sides start with
# the same arguments (--port P --bind 127.0.0.1 --save '') in the same directory, so even
# `dir`, `port` and `save` must agree.
#
# Usage: utils/compare-config.sh [redis-tp-server-binary]
#   With a redis-tp binary that answers CONFIG GET, it runs on a free loopback port and is
#   queried like the real server. Without one (or while CONFIG is not wired yet) a small
#   dumper is compiled from src/server/config*.cc and queried through the Config API instead.
# Exit status 0 when both lists are identical; the differences are printed otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
real_server=${REAL_REDIS_SERVER:-/usr/bin/redis-server}
ours_server=${1:-src/redis-server}
hidden=(key-load-delay loading-process-events-interval-bytes lua-enable-deprecated-api
        rdb-key-save-delay use-exit-on-panic watchdog-period)

work=$(mktemp -d /tmp/compare-config.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  echo "compare-config: no free port found" >&2
  exit 2
}

# Starts a server in $work and waits (at most 5 s) until it answers; sets started_port.
# (Not called through $(...), so that its pid reaches the cleanup list.)
start_server() {
  local bin=$1 port
  port=$(free_port)
  (cd "$work" && exec "$bin" --port "$port" --bind 127.0.0.1 --save '' >"$work/$port.log" 2>&1) &
  pids+=($!)
  for _ in $(seq 1 50); do
    if redis-cli -p "$port" ping >/dev/null 2>&1; then
      started_port=$port
      return
    fi
    sleep 0.1
  done
  echo "compare-config: $bin did not start (see below)" >&2
  cat "$work/$port.log" >&2
  exit 2
}

# Prints "name<TAB>value" lines, sorted, as CONFIG GET answers on that port.
query() {
  redis-cli -p "$1" config get '*' "${hidden[@]}" | paste - - | LC_ALL=C sort
}

start_server "$real_server"
port=$started_port
query "$port" >"$work/real.txt"

ours_port=""
if [[ -x $ours_server ]]; then
  start_server "$(cd "$(dirname "$ours_server")" && pwd)/$(basename "$ours_server")"
  ours_port=$started_port
  if [[ $(redis-cli -p "$ours_port" config get port | head -1) != port ]]; then
    echo "compare-config: $ours_server does not answer CONFIG GET; using the Config API" >&2
    ours_port=""
  fi
fi

if [[ -n $ours_port ]]; then
  source_desc="$ours_server on port $ours_port"
  query "$ours_port" >"$work/ours.txt"
else
  source_desc="Config API (src/server/config*.cc)"
  cat >"$work/dump.cc" <<'EOF'
// Loads the command line like redis-server, then prints CONFIG GET for the patterns in
// $CONFIG_PATTERNS (space separated) as "name<TAB>value" lines.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "server/config.h"

int main(int argc, char** argv) {
  redistp::Config config;
  redistp::Status s = config.LoadFromArgs(argc, argv);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  const char* env = std::getenv("CONFIG_PATTERNS");
  std::istringstream in(env != nullptr ? env : "*");
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  std::vector<std::string_view> patterns(words.begin(), words.end());
  auto pairs = config.Get(patterns);
  for (const auto& [name, value] : pairs.value()) {
    std::printf("%s\t%s\n", name.c_str(), value.c_str());
  }
  return 0;
}
EOF
  g++ -std=c++20 -O1 -I"$root/src" "$work/dump.cc" "$root"/src/server/config*.cc \
    "$root/src/server/version.cc" \
    "$root/src/util/numbers.cc" "$root/src/util/glob.cc" -o "$work/dump"
  (cd "$work" && CONFIG_PATTERNS="* ${hidden[*]}" ./dump --port "$port" --bind 127.0.0.1 --save '') |
    LC_ALL=C sort >"$work/ours.txt"
fi
# The two servers listen on different ports; compare the port line as "the port given".
sed -i "s/^port\t.*/port\t(given)/" "$work/real.txt" "$work/ours.txt"

real_count=$(wc -l <"$work/real.txt")
ours_count=$(wc -l <"$work/ours.txt")
echo "Redis 7.0 ($real_server): $real_count parameters (CONFIG GET * + ${#hidden[@]} hidden)"
echo "redis-tp ($source_desc): $ours_count parameters"
if diff -u --label redis --label redis-tp "$work/real.txt" "$work/ours.txt"; then
  echo "names and default values identical"
else
  exit 1
fi
