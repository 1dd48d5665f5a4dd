#!/usr/bin/env bash
# The Debian package, installed on this machine over Debian's redis-server and taken back out.
#
# Model. Runs only as root on a Debian machine where Debian's redis-server package is installed
# (CI is both); otherwise it prints one [skip] line. It swaps the machine's Redis for redis-tp and
# back, so it must run while nothing else uses /usr/bin/redis-server: tests/run-all.sh runs it
# last. Every step is the command a user would type. Servers run as the `redis` user with the
# Debian layout (/etc/redis/redis.conf, /var/lib/redis, /var/log/redis) as the service would
# start them, with only the port changed (a free one instead of 6379) and no daemonizing, since
# no systemd runs here. Whatever happens, the EXIT trap puts Debian's redis-server back from
# apt's cache (or Debian's mirror), and the data directory back as it was.
#
# Claims: Debian's Redis writes an RDB; `apt-get install ./redis-tp-server_*.deb` replaces the
# package (Debian's conffile redis.conf kept, the user and directories kept, our manual pages in
# place of Debian's redis-server(1)); the installed server loads that RDB, answers PING and
# SETTP, and saves; libredistp-dev installs, a program built with `pkg-config redistp` takes a
# lock on that server, and purging the package removes it; `apt-get install redis-server` brings
# Debian's Redis back (and its manual page), which loads the RDB redis-tp wrote (data intact
# both ways).
# Usage: tests/deb-check.sh   (builds the package with `make deb` first)
set -u
cd "$(dirname "$0")/.."
if [[ $(id -u) -ne 0 ]] || ! dpkg-query -W -f='${Status}' redis-server 2>/dev/null |
  grep -q "install ok installed"; then
  echo "[skip]: deb: needs root and Debian's redis-server installed"
  exit 0
fi
work=$(mktemp -d)
saved_data=$work/var-lib-redis
cp -a /var/lib/redis "$saved_data"
conf_sum=$(md5sum /etc/redis/redis.conf | cut -d' ' -f1)
port=$((21000 + RANDOM % 5000))
pid=

export DEBIAN_FRONTEND=noninteractive
# Another apt may hold dpkg's lock for a while (deps/install-deps.sh of a `make` elsewhere on
# the machine, which reinstalls Debian's redis-server when it finds it missing): wait for it.
apt_opts=(-y -q -o Dpkg::Options::=--force-confold -o DPkg::Lock::Timeout=300)
apt_quiet() { apt-get "${apt_opts[@]}" "$@" >"$work/apt.log" 2>&1; }
back_to_debian() {
  [[ -n $pid ]] && kill "$pid" 2>/dev/null
  if ! dpkg-query -W -f='${Status}' redis-server 2>/dev/null | grep -q "install ok installed"; then
    apt_quiet install --no-download redis-server || apt_quiet install redis-server ||
      { echo "[err]: deb: could not put Debian's redis-server back:"; tail -5 "$work/apt.log"; }
  fi
  # Nothing of ours stays in dpkg's database (a removed package keeps its "rc" entry).
  for _ in $(seq 60); do  # dpkg fails at once while another holds its lock: retry, bounded
    dpkg --purge libredistp-dev redis-tp-server >/dev/null 2>&1 && break
    sleep 5
  done
  rm -rf /var/lib/redis
  cp -a "$saved_data" /var/lib/redis
  rm -rf "$work"
}
trap back_to_debian EXIT

CLAIM_PREFIX=deb CLAIM_OUT=$work/out
. tests/support/claim.sh

# Starts /usr/bin/redis-server as the service would (user redis, the Debian config), on $port.
start_service() {
  runuser -u redis -- /usr/bin/redis-server /etc/redis/redis.conf --port "$port" \
    --daemonize no --pidfile "" &
  pid=$!
  for _ in $(seq 200); do
    redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && return 0
    sleep 0.05
  done
  return 1
}
stop_service() {
  redis-cli -p "$port" shutdown save >/dev/null 2>&1
  wait "$pid" 2>/dev/null
  pid=
}

# The way back must exist before the way in: Debian's package in apt's cache (fetched from
# Debian's mirror if it is not there). Without it nothing is swapped.
if ! apt_quiet install --reinstall --download-only redis-server; then
  echo "[err]: deb: Debian's redis-server package is not available to go back to (see apt's log)"
  tail -5 "$work/apt.log"
  exit 1
fi

debian_writes() {
  start_service || return 1
  redis-cli -p "$port" set from-debian 1 >/dev/null
  redis-cli -p "$port" rpush list a b c >/dev/null
  stop_service
  [[ -s /var/lib/redis/dump.rdb ]]
}
claim "Debian's Redis writes /var/lib/redis/dump.rdb" debian_writes

debs=$(make --no-print-directory -s deb)
deb=$(grep -E 'redis-tp-server_[^/]*[.]deb$' <<<"$debs")
devdeb=$(grep -E 'libredistp-dev_[^/]*[.]deb$' <<<"$debs")
claim "make deb builds the two packages (redis-tp-server, libredistp-dev)" \
  test -s "$deb" -a -s "$devdeb"
# lintian, when the machine has it: no error but the placeholder maintainer address (the
# project has no public one yet).
if command -v lintian >/dev/null; then
  lintian_clean() {
    local errors
    errors=$(lintian "$deb" "$devdeb" 2>&1 | grep '^E:' | grep -v 'bogus-mail-host')
    [[ -z $errors ]] || { echo "$errors"; return 1; }
  }
  claim "lintian finds no error in either package (but the maintainer address)" lintian_clean
fi
claim "apt-get install ./<deb> replaces Debian's redis-server" apt_quiet install "./$deb"
replaced() {
  dpkg-query -W -f='${Status}' redis-tp-server | grep -q "install ok installed" &&
    ! dpkg-query -W -f='${Status}' redis-server 2>/dev/null | grep -q "install ok installed" &&
    /usr/bin/redis-server --version | grep -q redis-tp &&
    [[ $(md5sum /etc/redis/redis.conf | cut -d' ' -f1) == "$conf_sum" ]] &&
    getent passwd redis >/dev/null && [[ -f /lib/systemd/system/redis-server.service ]]
}
claim "redis-server is redis-tp, Debian's redis.conf and the redis user are kept" replaced
claim "systemd-analyze verify accepts the installed unit (and its ExecStart program)" \
  bash -c '[[ -z $(systemd-analyze verify /lib/systemd/system/redis-server.service 2>&1) ]]'
man_pages() {
  local page
  for page in redis-server redis-tp-lock redis-tp-elect redis-tp-watch; do
    # Compressed as policy wants, found by man(1), and it is ours.
    gzip -t "/usr/share/man/man1/$page.1.gz" || return 1
    MANWIDTH=80 man --warnings "$page" 2>&1 | grep -q redis-tp || { echo "man $page"; return 1; }
  done
}
claim "man redis-server, redis-tp-lock, redis-tp-elect, redis-tp-watch show redis-tp's pages" \
  man_pages

tp_serves() {
  start_service || return 1
  [[ $(redis-cli -p "$port" get from-debian) == 1 ]] || { echo "the RDB did not load"; return 1; }
  [[ $(redis-cli -p "$port" lrange list 0 -1 | paste -sd,) == a,b,c ]] || return 1
  [[ $(redis-cli -p "$port" settp lock me) == 1 ]] || { echo "SETTP failed"; return 1; }
  redis-cli -p "$port" set from-redis-tp 2 >/dev/null
  stop_service
}
claim "redis-tp loads Debian's RDB, answers PING and SETTP, saves" tp_serves

# The development package: installed with apt, a program built with pkg-config alone (the
# example of libredistp(3), as man prints it) takes a lock on the installed server, and the
# package goes again without a trace.
claim "apt-get install ./libredistp-dev_*.deb installs the library, headers, redistp.pc" \
  apt_quiet install "./$devdeb"
dev_builds() {
  local src=$work/example.cc
  MANWIDTH=200 man 3 libredistp | sed -n '/^EXAMPLE/,/^FILES/p' | sed '1d;$d' |
    sed -e 's/^       //' -e "s/options.port = 6379/options.port = $port/" >"$src"
  grep -q "options.port = $port" "$src" || { echo "no example in man 3 libredistp"; return 1; }
  # shellcheck disable=SC2046
  g++ -o "$work/example" "$src" $(pkg-config --cflags --libs redistp) || return 1
  start_service || return 1
  timeout 20 "$work/example" | grep -E '^holding jobs:lock, token [0-9]+$'
  local rc=$?
  stop_service
  return $rc
}
claim "a program built with pkg-config redistp takes a lock on the installed redis-tp" dev_builds
dev_removed() {
  local files
  files=$(dpkg -L libredistp-dev | while read -r f; do [[ -f $f ]] && echo "$f"; done)
  apt_quiet purge libredistp-dev || return 1
  for f in $files; do [[ ! -e $f ]] || { echo "left: $f"; return 1; }; done
  ! pkg-config --exists redistp && ! dpkg-query -W libredistp-dev >/dev/null 2>&1
}
claim "apt-get purge libredistp-dev removes every file it installed" dev_removed

going_back() {
  apt-get "${apt_opts[@]}" install --no-download redis-server ||
    apt-get "${apt_opts[@]}" install redis-server
}
claim "apt-get install redis-server goes back to Debian's Redis" going_back
debian_reads() {
  /usr/bin/redis-server --version | grep -q "v=7.0" || return 1
  ! /usr/bin/redis-server --version | grep -q redis-tp || return 1
  ! zgrep -q redis-tp /usr/share/man/man1/redis-server.1.gz || return 1
  start_service || return 1
  [[ $(redis-cli -p "$port" get from-debian) == 1 ]] &&
    [[ $(redis-cli -p "$port" get from-redis-tp) == 2 ]] &&
    [[ $(redis-cli -p "$port" exists lock) == 0 ]]
  local rc=$?
  stop_service
  return $rc
}
claim "Debian's Redis loads the RDB redis-tp wrote (the temporary key gone with its owner)" \
  debian_reads
exit $((claim_failures > 0))
