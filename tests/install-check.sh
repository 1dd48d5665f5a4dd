#!/usr/bin/env bash
# `make install` / `make uninstall` into a scratch DESTDIR: every file the Makefile's install
# section promises is laid out (server, tools, libredistp with headers and pkg-config file, docs,
# the example config, systemd unit and logrotate file, the manual pages), the installed server
# runs, a program built only from the installed headers and library through `pkg-config
# redistp` compiles, links and connects to that server, and uninstall leaves nothing behind.
# The manual pages cannot drift silently from the programs: each renders without a warning,
# every option a tool's page documents is one the installed tool accepts and every option of
# its --help is documented, every directive redis-server(1) names is one the installed server
# knows, every entry point libredistp(3) names is declared in the installed headers, and the
# page's example program builds and takes a lock on the installed server.
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
CLAIM_PREFIX=install CLAIM_OUT=$root/out
. tests/support/claim.sh

claim "make install DESTDIR PREFIX=/usr succeeds" \
  make --no-print-directory -s install SANITIZE=$sanitize DESTDIR="$root/stage" PREFIX=/usr
p=$root/stage/usr
expected=(bin/redis-server bin/redis-tp-lock bin/redis-tp-watch bin/redis-tp-elect
  lib/libredistp.a lib/pkgconfig/redistp.pc include/redistp/client/redistp_client.h
  include/redistp/client/lock.h share/doc/redis-tp/README.md
  share/doc/redis-tp/temporary-keys-and-watches.md share/redis-tp/redis.conf
  share/redis-tp/redis-server.service share/redis-tp/redis-server
  share/man/man1/redis-server.1 share/man/man1/redis-tp-lock.1 share/man/man1/redis-tp-elect.1
  share/man/man1/redis-tp-watch.1 share/man/man3/libredistp.3)
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

# The manual pages. Each renders through man(1) with groff's warnings on, and says nothing.
man_renders() {
  local page out
  for page in "$p"/share/man/man1/*.1 "$p"/share/man/man3/*.3; do
    out=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
    [[ -z $out ]] || { echo "$page: $out"; return 1; }
  done
}
claim "every manual page renders without a warning (man --warnings)" man_renders

# The options a page documents: the words starting with '-' on the tag line of each .TP/.TQ
# item of its OPTIONS section.
page_options() {
  awk '/^\.SH /{opts = ($2 == "OPTIONS")} opts && tag {print; tag = 0}
       opts && /^\.T[PQ]/{tag = 1}' "$1" | sed 's/\\-/-/g' |
    grep -oE '(^|[ "])--?[A-Za-z][-A-Za-z]*' | tr -d ' "' | sort -u
}
# A tool accepts an option when it does not call it unknown given alone, or, for -c/--command,
# which follow the positional names, when it asks for the command string given after them
# (the lock's one name; the election's name and proposal).
tool_accepts() {
  local tool=$1 opt=$2 out
  out=$(timeout 10 "$tool" "$opt" 2>&1 </dev/null)
  grep -q -- "unknown option $opt\b" <<<"$out" || return 0
  [[ $opt == -c || $opt == --command ]] || return 1
  out=$(timeout 10 "$tool" -p 1 name "$opt" 2>&1 </dev/null)
  out+=$(timeout 10 "$tool" -p 1 name proposal "$opt" 2>&1 </dev/null)
  grep -qE "(needs|takes) (a|one) command string" <<<"$out"
}
tool_pages_match() {
  local t page opt documented help_opts bad=0
  for t in redis-tp-lock redis-tp-elect redis-tp-watch; do
    page=$p/share/man/man1/$t.1
    documented=$(page_options "$page")
    [[ -n $documented ]] || { echo "$t.1: no options found"; return 1; }
    # The check itself can fail: an option no tool has is called unknown.
    tool_accepts "$p/bin/$t" --no-such-option && { echo "$t accepts anything"; return 1; }
    for opt in $documented; do
      tool_accepts "$p/bin/$t" "$opt" || { echo "$t.1 documents $opt, $t rejects it"; bad=1; }
    done
    help_opts=$("$p/bin/$t" --help | grep -oE '^ +(-[A-Za-z], )?--[a-z][-a-z]*' |
      grep -oE -- '--?[A-Za-z][-a-z]*' | sort -u)
    for opt in $help_opts; do
      grep -qx -- "$opt" <<<"$documented" || { echo "$t --help has $opt, $t.1 does not"; bad=1; }
    done
  done
  return $bad
}
claim "each tool's page documents exactly the options the tool accepts and its --help lists" \
  tool_pages_match

# redis-server(1): -v/--version and -h/--help answer and exit 0, the two Redis flags it says are
# not built are refused, and every other --name it shows is a directive the server knows.
server_page_matches() {
  local page=$p/share/man/man1/redis-server.1 opt name port=$((21000 + RANDOM % 5000))
  local dir=$root/srvpage pid rc=0
  for opt in -v --version -h --help; do
    page_options "$page" | grep -qx -- "$opt" || { echo "$opt is not documented"; return 1; }
    "$p/bin/redis-server" "$opt" >/dev/null 2>&1 || { echo "$opt fails"; return 1; }
  done
  for opt in --test-memory --check-system; do
    "$p/bin/redis-server" "$opt" >/dev/null 2>&1 && { echo "$opt is accepted"; return 1; }
  done
  mkdir -p "$dir"
  "$p/bin/redis-server" --port $port --bind 127.0.0.1 --save "" --dir "$dir" \
    --logfile "$dir/log" &
  pid=$!
  for _ in $(seq 100); do redis-cli -p $port ping >/dev/null 2>&1 && break; sleep 0.05; done
  for name in $(sed 's/\\-/-/g' "$page" | grep -oE -- '--[a-z][-a-z]*' | sed 's/^--//' |
    sort -u | grep -vxE 'name|version|help|test-memory|check-system'); do
    [[ $(redis-cli -p $port config get "$name" | head -1) == "$name" ]] ||
      { echo "redis-server.1 names --$name, the server has no such directive"; rc=1; }
  done
  kill $pid
  wait $pid 2>/dev/null
  return $rc
}
claim "redis-server(1)'s flags work and every directive it names exists" server_page_matches

# libredistp(3): every Class::member it names is declared in the installed header of that class.
lib_page_matches() {
  local page=$p/share/man/man3/libredistp.3 inc=$p/include/redistp/client entry cls member
  local header bad=0 n=0
  for entry in $(grep -oE '^\.BR? [A-Z][A-Za-z]*::[A-Za-z_]+' "$page" | cut -d' ' -f2 | sort -u);
  do
    cls=${entry%%::*} member=${entry##*::} n=$((n + 1))
    header=$(grep -lE "^(class|struct) $cls\b" "$inc"/*.h | head -1)
    [[ -n $header ]] || { echo "libredistp.3 names $cls, no header declares it"; bad=1; continue; }
    grep -qE "\b$member\b" "$header" || { echo "$entry is not in $(basename "$header")"; bad=1; }
  done
  ((n >= 20)) || { echo "only $n entry points found in the page"; return 1; }
  return $bad
}
claim "every entry point libredistp(3) names is declared in the installed headers" \
  lib_page_matches

# The page's EXAMPLE, as printed, built against the installed library and run: it takes a lock.
lib_example_runs() {
  local port=$((21000 + RANDOM % 5000)) dir=$root/example pid rc
  mkdir -p "$dir"
  awk '/^\.SH EXAMPLE/{ex = 1} ex && /^\.EE/{exit} ex && code {print} ex && /^\.EX/{code = 1}' \
    "$p/share/man/man3/libredistp.3" | sed -e 's/\\e/\\/g' -e 's/\\-/-/g' \
    -e "s/options.port = 6379/options.port = $port/" >"$dir/example.cc"
  grep -q "options.port = $port" "$dir/example.cc" || { echo "no example found"; return 1; }
  local sanflags=()
  ((sanitize)) && sanflags=(-fsanitize=address,undefined)
  # shellcheck disable=SC2046
  g++ "${sanflags[@]}" $(pc --cflags) -o "$dir/example" "$dir/example.cc" $(pc --libs) ||
    return 1
  "$p/bin/redis-server" --port $port --bind 127.0.0.1 --save "" --dir "$dir" \
    --logfile "$dir/log" &
  pid=$!
  for _ in $(seq 100); do redis-cli -p $port ping >/dev/null 2>&1 && break; sleep 0.05; done
  timeout 20 "$dir/example" | grep -E '^holding jobs:lock, token [0-9]+$'
  rc=$?
  kill $pid
  wait $pid 2>/dev/null
  return $rc
}
claim "the libredistp(3) example builds and takes a lock on the installed server" lib_example_runs

left() {
  make --no-print-directory -s uninstall SANITIZE=$sanitize DESTDIR="$root/stage" PREFIX=/usr || return 1
  local rest
  rest=$(find "$root/stage" -type f)
  [[ -z $rest ]] || { echo "left behind: $rest"; return 1; }
}
claim "make uninstall removes every installed file" left
exit $((claim_failures > 0))
