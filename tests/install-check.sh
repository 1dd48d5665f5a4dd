#!/usr/bin/env bash
# `make install` / `make uninstall` into a scratch DESTDIR: every file the Makefile's install
# section promises is laid out (server, tools, libredistp with headers and pkg-config file, docs,
# the example config, systemd unit and logrotate file), the installed server runs, a program
# built only from the installed headers and library through `pkg-config redistp` compiles,
# links and connects to that server, and uninstall leaves nothing behind.
#
# Usage: tests/install-check.sh BUILD_DIR   (build/release or build/sanitize: the flavour
# installed). Prints one [ok]/[err] line per claim; exits non-zero on any [err].
set -u
build=$1
cd "$(dirname "$0")/.."
sanitize=0
[[ $build == */sanitize ]] && sanitize=1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fails=0
claim() {  # claim <text> <command...>
  local text=$1
  shift
  if "$@" >"$root/out" 2>&1; then
    echo "[ok]: install: $text"
  else
    echo "[err]: install: $text"
    tail -5 "$root/out"
    fails=$((fails + 1))
  fi
}

claim "make install DESTDIR PREFIX=/usr succeeds" \
  make --no-print-directory -s install SANITIZE=$sanitize DESTDIR="$root/stage" PREFIX=/usr
p=$root/stage/usr
expected=(bin/redis-server bin/redis-tp-lock bin/redis-tp-watch bin/redis-tp-elect
  lib/libredistp.a lib/pkgconfig/redistp.pc include/redistp/client/redistp_client.h
  include/redistp/client/lock.h share/doc/redis-tp/README.md
  share/doc/redis-tp/temporary-keys-and-watches.md share/redis-tp/redis.conf
  share/redis-tp/redis-server.service share/redis-tp/redis-server)
missing() {
  local f
  for f in "${expected[@]}"; do [[ -f $p/$f ]] || { echo "missing $f"; return 1; }; done
}
claim "every promised file is laid out under PREFIX" missing
claim "the installed server says it is redis-tp" \
  bash -c "'$p/bin/redis-server' --version | grep -q redis-tp"

cat >"$root/hello.cc" <<'CC'
#include <event2/event.h>
#include <cstdio>
#include <string>
#include "client/redistp_client.h"
int main(int argc, char** argv) {
  event_base* base = event_base_new();
  redistp::client::ClientOptions options;
  options.port = std::stoi(argv[1]);
  std::string answer;
  {
    redistp::client::Client client(base, options);
    client.Start();
    client.Command({"PING"}, [&](const redistp::client::Reply& r) {
      answer = r.str;
      event_base_loopbreak(base);
    });
    timeval limit{5, 0};
    event_base_loopexit(base, &limit);
    event_base_dispatch(base);
  }
  event_base_free(base);
  std::printf("%s\n", answer.c_str());
  return answer == "PONG" ? 0 : 1;
}
CC
pc() { PKG_CONFIG_PATH=$p/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root/stage pkg-config "$@" redistp; }
build_hello() {
  local sanflags=()
  ((sanitize)) && sanflags=(-fsanitize=address,undefined)
  # shellcheck disable=SC2046
  g++ "${sanflags[@]}" $(pc --cflags) -o "$root/hello" "$root/hello.cc" $(pc --libs)
}
claim "a program builds from the installed headers and library (pkg-config redistp)" build_hello

run_hello() {
  local port=$((21000 + RANDOM % 5000)) dir=$root/run pid rc
  mkdir -p "$dir"
  "$p/bin/redis-server" --port $port --bind 127.0.0.1 --save "" --dir "$dir" \
    --logfile "$dir/log" &
  pid=$!
  for _ in $(seq 100); do redis-cli -p $port ping >/dev/null 2>&1 && break; sleep 0.05; done
  "$root/hello" $port
  rc=$?
  kill $pid
  wait $pid 2>/dev/null
  return $rc
}
claim "that program talks to the installed server" run_hello

left() {
  make --no-print-directory -s uninstall SANITIZE=$sanitize DESTDIR="$root/stage" PREFIX=/usr || return 1
  local rest
  rest=$(find "$root/stage" -type f)
  [[ -z $rest ]] || { echo "left behind: $rest"; return 1; }
}
claim "make uninstall removes every installed file" left
exit $((fails > 0))
