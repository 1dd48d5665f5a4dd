#!/usr/bin/env bash
# The systemd unit (utils/systemd/redis-server.service) with the service manager's side played
# by this script, since no systemd runs here (PID 1 of a container is not systemd, so neither
# systemctl, systemd-run nor a booted systemd-nspawn container can start it).
#
# Model. What can be checked without a running systemd is checked the way systemd would see it:
#  - the unit file itself, with systemd's own parser (`systemd-analyze verify`: every key known,
#    every value parsed, the ExecStart program executable) and its offline sandbox review
#    (`systemd-analyze security --offline`), whose exposure must not exceed that of Debian's
#    unit for Redis 7.0 when the machine has it;
#  - the ExecStart line, run as systemd runs it: the program and arguments of the unit (the two
#    paths mapped into a scratch copy of the Debian layout: the build's server for
#    /usr/bin/redis-server, a copy of the machine's /etc/redis/redis.conf with its dir, logfile,
#    pidfile and port moved into the scratch tree), as User=/Group= redis, with UMask=, the
#    RuntimeDirectory= created as systemd creates it, an empty environment but NOTIFY_SOCKET,
#    and the working directory /. The notify socket is a datagram socket this script reads
#    (tests/support/notify-listen.py). Type=notify wants READY=1 once the server serves, from
#    the process systemd started (no fork), and on SIGTERM (systemctl stop) STOPPING=1, a final
#    save and exit status 0.
# Not checked here, for want of a service manager: the sandboxing directives (ProtectSystem=,
# PrivateUsers=, SystemCallFilter=... are applied by systemd itself), Restart=, the ordering
# and the Alias=. Runs only as root with the redis user present; otherwise one [skip] line.
#
# Usage: tests/service-check.sh BUILD_DIR   (build/release: its redis-server is run)
set -u
build=${1:-build/release}
cd "$(dirname "$0")/.."
unit=utils/systemd/redis-server.service
if [[ $(id -u) -ne 0 ]] || ! getent passwd redis >/dev/null; then
  echo "[skip]: service: needs root and the redis user"
  exit 0
fi
server=$(realpath "$build")/redis-server
work=$(mktemp -d)
chmod 755 "$work"
pid=
listener=
cleanup() {
  [[ -n $pid ]] && kill -9 "$pid" 2>/dev/null
  [[ -n $listener ]] && kill "$listener" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
CLAIM_PREFIX=service CLAIM_OUT=$work/out
. tests/support/claim.sh

# The unit as the package installs it, with ExecStart naming this build's server.
sed "s|^ExecStart=/usr/bin/redis-server |ExecStart=$server |" "$unit" >"$work/redis-server.service"
verify_unit() {
  local out
  out=$(systemd-analyze verify "$work/redis-server.service" 2>&1) || { echo "$out"; return 1; }
  [[ -z $out ]] || { echo "$out"; return 1; }
}
claim "systemd-analyze verify accepts the unit without a warning" verify_unit

debian_unit=/lib/systemd/system/redis-server.service
if dpkg -S "$debian_unit" 2>/dev/null | grep -q '^redis-server:'; then
  exposure() {
    systemd-analyze security --offline=yes "$1" 2>/dev/null |
      sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'
  }
  no_more_exposed() {
    local ours theirs
    ours=$(exposure "$work/redis-server.service")
    theirs=$(exposure "$debian_unit")
    echo "exposure: ours $ours, Debian's $theirs"
    [[ -n $ours && -n $theirs ]] && awk -v a="$ours" -v b="$theirs" 'BEGIN { exit !(a <= b) }'
  }
  claim "systemd-analyze security: exposure no higher than Debian's unit for Redis" \
    no_more_exposed
fi

# The scratch Debian layout, owned as Debian's redis-server package owns it.
port=$((21000 + RANDOM % 5000))
root=$work/root
install -d -o redis -g redis -m 2750 "$root/var/lib/redis" "$root/var/log/redis"
install -d -m 755 "$root/etc/redis"
conf=$root/etc/redis/redis.conf
src_conf=/etc/redis/redis.conf
[[ -r $src_conf ]] || src_conf=redis.conf
sed -E -e "s|^(#\\s*)?dir .*|dir $root/var/lib/redis|" \
  -e "s|^(#\\s*)?logfile .*|logfile $root/var/log/redis/redis-server.log|" \
  -e "s|^(#\\s*)?pidfile .*|pidfile $root/run/redis/redis-server.pid|" \
  -e "s|^port .*|port $port|" "$src_conf" >"$conf"
# DEBUG POPULATE fills the dataset whose loading READY=1 must wait for.
printf 'port %s\nenable-debug-command local\n' "$port" >>"$conf"
chown root:redis "$conf"
chmod 640 "$conf"

# The unit's settings, read from the unit.
unit_value() { sed -n "s/^$1=//p" "$unit" | tail -1; }
read -r -a exec_start <<<"$(unit_value ExecStart)"
exec_start[0]=$server
for i in "${!exec_start[@]}"; do
  [[ ${exec_start[$i]} == /etc/redis/redis.conf ]] && exec_start[$i]=$conf
done
user=$(unit_value User)
group=$(unit_value Group)
umask_value=$(unit_value UMask)
runtime_dir=$(unit_value RuntimeDirectory)
runtime_mode=$(unit_value RuntimeDirectoryMode)

notify_log=$work/notify.log
sock=$work/notify.sock
/usr/bin/python3 tests/support/notify-listen.py "$sock" "$notify_log" &
listener=$!
for _ in $(seq 100); do [[ -S $sock ]] && break; sleep 0.05; done

# Starts the ExecStart line as systemd would and waits (bounded) for READY=1.
start_unit() {
  : >"$notify_log"
  rm -rf "$root/run/$runtime_dir"
  install -d -o "$user" -g "$group" -m "$runtime_mode" "$root/run/$runtime_dir"
  (
    cd / || exit 1
    umask "$umask_value"
    exec setpriv --reuid="$user" --regid="$group" --init-groups \
      env -i NOTIFY_SOCKET="$sock" "${exec_start[@]}"
  ) &
  pid=$!
  for _ in $(seq 400); do
    grep -qx 'READY=1' "$notify_log" && return 0
    kill -0 "$pid" 2>/dev/null || { echo "the server exited before READY=1"; return 1; }
    sleep 0.05
  done
  echo "no READY=1 on the notify socket"
  return 1
}
# systemctl stop: SIGTERM to the main process, then wait (bounded) for it to exit.
stop_unit() {
  kill -TERM "$pid"
  for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  wait "$pid"
  stop_rc=$?
  pid=
}

first_run() {
  start_unit || return 1
  [[ $(redis-cli -p "$port" ping) == PONG ]] || return 1
  # The process systemd started is the server (Type=notify: no fork), as the redis user.
  [[ $(cat "$root/run/$runtime_dir/redis-server.pid") == "$pid" ]] ||
    { echo "the pidfile does not name the started process"; return 1; }
  [[ $(ps -o user= -p "$pid") == "$user" ]] || { echo "not running as $user"; return 1; }
  redis-cli -p "$port" debug populate 200000 >/dev/null
  redis-cli -p "$port" set service-check 1 >/dev/null
}
claim "the ExecStart line, run as the unit runs it, says READY=1 and serves as $user" first_run

stopped_cleanly() {
  stop_unit
  echo "exit status $stop_rc; notify messages: $(paste -sd' ' "$notify_log")"
  [[ $stop_rc -eq 0 ]] || return 1
  grep -qx 'STOPPING=1' "$notify_log" || return 1
  # The final save happened, as the redis user, under the unit's UMask (no access for others).
  local rdb=$root/var/lib/redis/dump.rdb
  [[ -s $rdb && $(stat -c %U "$rdb") == "$user" ]] || { echo "no dump.rdb of $user"; return 1; }
  (($(stat -c %a "$rdb") % 10 == 0)) || { echo "dump.rdb mode $(stat -c %a "$rdb")"; return 1; }
}
claim "SIGTERM (systemctl stop): STOPPING=1, a final save, exit status 0" stopped_cleanly

ready_after_load() {
  start_unit || return 1
  # READY=1 came once the data had loaded: the first command after it sees all of it.
  local n
  n=$(redis-cli -p "$port" dbsize)
  echo "DBSIZE right after READY=1: $n"
  [[ $n == 200001 ]] || return 1
  stop_unit
  [[ $stop_rc -eq 0 ]]
}
claim "after a restart READY=1 comes once the saved data is loaded" ready_after_load
exit $((claim_failures > 0))
