#!/usr/bin/env bash
# The systemd unit (utils/systemd/redis-server.service), checked four ways, since no systemd runs
# on this machine (PID 1 of the container it is is not systemd, so systemctl and systemd-run
# cannot be used here directly).
#
# Model.
#  1. The unit file, with systemd's own parser (`systemd-analyze verify`: every key known, every
#     value parsed, the ExecStart program executable) and its offline sandbox review
#     (`systemd-analyze security --offline`), whose exposure must not exceed that of Debian's
#     unit for Redis 7.0 when the machine has it.
#  2. The ExecStart line, run by this script as systemd runs it: the program and arguments of
#     the unit (the two paths mapped into a scratch copy of the Debian layout: the build's
#     server for /usr/bin/redis-server, a copy of the machine's /etc/redis/redis.conf with its
#     dir, logfile, pidfile and port moved into the scratch tree), as User=/Group= redis, with
#     UMask=, the RuntimeDirectory= created as systemd creates it, an empty environment but
#     NOTIFY_SOCKET, and the working directory /. The notify socket is a datagram socket this
#     script reads (tests/support/notify-listen.py). Type=notify wants READY=1 once the server
#     serves, from the process systemd started (no fork), and on SIGTERM (systemctl stop)
#     STOPPING=1, a final save and exit status 0.
#  3. A real systemd: a container booted with systemd-nspawn from this machine's own /usr
#     (--volatile=yes: a fresh tmpfs root, nothing of the host is written), in a network
#     namespace of its own (--private-network: loopback only, so the machine's redis.conf runs
#     unchanged, port 6379 included), with the build's server bound over /usr/bin/redis-server,
#     the unit in /etc/systemd/system, the host's passwd and group (the redis user), and scratch
#     /etc/redis (a copy of the machine's redis.conf), /var/lib/redis and /var/log/redis. Its
#     systemd enables the unit at first boot (Debian's presets enable every unit) and applies
#     everything the unit asks, the sandboxing included. Commands run inside through nsenter.
#     Checked: started at boot, active (running) with the server's status text, as redis;
#     `systemctl stop` ends with Result=success and status 0 after saving; `systemctl start`
#     loads the data again; Restart=always brings the server back after kill -9.
#  4. README's two commands in and two back, as written there, under systemd in a container of
#     this machine's own system (its /usr, /etc and /var as overlays on a tmpfs: nothing of the
#     machine changes, unlike tests/deb-check.sh, which swaps the machine's own package):
#     Debian's Redis runs and saves; the install restarts the service as redis-tp, still
#     enabled, with that data; libredistp-dev installs there and the example of libredistp(3)
#     built with pkg-config takes a lock on the service; going back gives Debian's Redis with
#     what redis-tp saved.
# Runs only as root with the redis user present; parts 3 and 4 only where systemd-nspawn and
# the machine's /etc/redis/redis.conf exist, part 4 only with Debian's redis-server installed and
# in apt's cache; otherwise a [skip] line each.
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
container=
cleanup() {
  [[ -n $pid ]] && kill -9 "$pid" 2>/dev/null
  [[ -n $listener ]] && kill "$listener" 2>/dev/null
  # systemd-nspawn halts its container on SIGTERM.
  [[ -n $container ]] && pkill -TERM -P "$container" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
CLAIM_PREFIX=service CLAIM_OUT=$work/out
. tests/support/claim.sh

# ---- 1. the unit file ---------------------------------------------------------------------------
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

# ---- 2. the ExecStart line, with this script as the service manager ----------------------------
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

# ---- 3. under systemd, in a container -----------------------------------------------------------
if ! command -v systemd-nspawn >/dev/null || [[ ! -r /etc/redis/redis.conf ]]; then
  echo "[skip]: service: under systemd: needs systemd-nspawn and /etc/redis/redis.conf"
  exit $((claim_failures > 0))
fi
box=$work/box
install -d -o redis -g redis -m 2750 "$box/lib" "$box/log"
install -d -o redis -g redis -m 2770 "$box/etc"
install -o redis -g redis -m 640 /etc/redis/redis.conf "$box/etc/redis.conf"
timeout -k 5 240 systemd-nspawn -D / --volatile=yes --register=no --keep-unit --console=pipe \
  --machine="redistp-check-$$" --private-network \
  --bind-ro=/etc/passwd --bind-ro=/etc/group \
  --bind-ro="$server:/usr/bin/redis-server" \
  --bind-ro="$PWD/$unit:/etc/systemd/system/redis-server.service" \
  --bind="$box/etc:/etc/redis" --bind="$box/lib:/var/lib/redis" --bind="$box/log:/var/log/redis" \
  -b </dev/null >"$work/nspawn.out" 2>&1 &
container=$!
init=
# Runs a command inside the container (its mount, PID and network namespaces).
inside() { nsenter -t "$init" -m -p -n "$@"; }
unit_prop() { inside systemctl show -p "$1" --value redis-server; }
booted() {
  local nspawn
  for _ in $(seq 300); do
    nspawn=$(ps -o pid= --ppid "$container" | tr -d ' ')
    init=$(ps -o pid=,comm= --ppid "${nspawn:-0}" 2>/dev/null | awk '$2 == "systemd" {print $1}')
    # "starting" too: the boot may wait for this very unit (Type=notify), judged below.
    [[ -n $init ]] &&
      inside systemctl is-system-running 2>/dev/null | grep -qE 'starting|running|degraded' &&
      return 0
    kill -0 "$container" 2>/dev/null || break
    sleep 0.2
  done
  echo "the container did not boot"
  tail -5 "$work/nspawn.out"
  return 1
}
at_boot() {
  booted || return 1
  # Type=notify: systemd has the unit running only once READY=1 came; wait for that.
  for _ in $(seq 200); do [[ $(unit_prop SubState) == running ]] && break; sleep 0.1; done
  echo "$(unit_prop ActiveState) ($(unit_prop SubState)), status: $(unit_prop StatusText)"
  [[ $(unit_prop ActiveState) == active && $(unit_prop SubState) == running ]] || return 1
  [[ $(unit_prop StatusText) == "Ready to accept connections" ]] || return 1
  [[ $(inside redis-cli ping) == PONG ]] || return 1
  inside redis-cli info server | grep -q '^process_supervised:systemd' || return 1
  [[ $(inside ps -o user= -p "$(unit_prop MainPID)") == redis ]] ||
    { echo "not running as redis"; return 1; }
  [[ $(inside redis-cli set service-check kept) == OK ]]
}
claim "under systemd (nspawn): enabled at first boot, active (running) once ready, as redis" at_boot

stop_saves() {
  inside timeout 60 systemctl stop redis-server || return 1
  echo "Result=$(unit_prop Result) status=$(unit_prop ExecMainStatus)"
  [[ $(unit_prop ActiveState) == inactive && $(unit_prop Result) == success ]] || return 1
  [[ $(unit_prop ExecMainStatus) == 0 && -s $box/lib/dump.rdb ]]
}
claim "under systemd: systemctl stop saves, Result=success, exit status 0" stop_saves

start_and_restart() {
  inside timeout 60 systemctl start redis-server || return 1
  [[ $(unit_prop SubState) == running ]] || return 1
  [[ $(inside redis-cli get service-check) == kept ]] || { echo "the data did not load"; return 1; }
  local old new
  old=$(unit_prop MainPID)
  inside kill -9 "$old"
  for _ in $(seq 300); do
    new=$(unit_prop MainPID)
    [[ $new != 0 && $new != "$old" && $(unit_prop SubState) == running ]] && break
    sleep 0.1
  done
  echo "MainPID $old killed, now $new ($(unit_prop SubState)), restarts: $(unit_prop NRestarts)"
  [[ $new != 0 && $new != "$old" && $(inside redis-cli ping) == PONG ]]
}
claim "under systemd: systemctl start loads the data; Restart=always revives a killed server" \
  start_and_restart

# Power the container off and wait for it (bounded by its timeout).
[[ -n $init ]] && inside systemctl poweroff 2>/dev/null
wait "$container" 2>/dev/null
container=

# ---- 4. the README's commands, under systemd, on a copy of this machine ------------------------
# The commands of README's "Installing over Debian's Redis" and "Going back", as written there
# (without sudo: this runs as root), in a container booted from this machine's own system: its
# /usr, /etc and /var as overlays whose writes go to a tmpfs (the machine's packages, dpkg
# database, apt cache, Debian's redis.conf and data, none of them changed), in a network
# namespace of its own (apt works from its cache, so Debian's package must be in it), booted to
# basic.target (nothing of the machine's own services starts but what the test starts). The
# container's policy-rc.d, a Docker image's way of forbidding service starts in maintainer
# scripts, is removed there, as a real machine has none. apt's confirmation is given by its
# configuration (Assume-Yes), so the commands stay as the README prints them.
readme_commands() {
  awk -v h="$1" 'index($0, h) == 1 {s = 1} s && /^```sh/ {c = 1; next} s && c && /^```/ {exit}
    s && c' README.md | sed -e 's/[[:space:]]*#.*$//' -e 's/^sudo //'
}
mapfile -t cmds_in < <(readme_commands "### Installing over Debian's Redis")
mapfile -t cmds_back < <(readme_commands "### Going back")
if ! dpkg-query -W -f='${Status}' redis-server 2>/dev/null | grep -q "install ok installed" ||
  ! ls /var/cache/apt/archives/redis-server_*.deb >/dev/null 2>&1; then
  echo "[skip]: service: README under systemd: needs Debian's redis-server, also in apt's cache"
  exit $((claim_failures > 0))
fi
readme_sections() {
  echo "in: ${cmds_in[*]}; back: ${cmds_back[*]}"
  [[ ${#cmds_in[@]} -eq 2 && ${cmds_in[0]} == "make deb" && ${#cmds_back[@]} -eq 2 ]]
}
claim "README: two commands in (make deb, then apt), two back" readme_sections
# The first command builds on this machine, as a user would in the source tree.
claim "README: '${cmds_in[0]}' builds the packages" bash -c "${cmds_in[0]} >/dev/null"
timeout -k 5 300 systemd-nspawn -D / --volatile=yes --register=no --keep-unit --console=pipe \
  --machine="redistp-readme-$$" --private-network \
  --overlay=/usr::/usr --overlay=/etc::/etc --overlay=/var::/var \
  --bind-ro="$PWD:/src" -b systemd.unit=basic.target </dev/null >"$work/nspawn.out" 2>&1 &
container=$!
init=
run_in_src() { inside env DEBIAN_FRONTEND=noninteractive sh -c "cd /src && $1"; }
debian_runs() {
  booted || return 1
  inside rm -f /usr/sbin/policy-rc.d
  printf 'APT::Get::Assume-Yes "true";\nDpkg::Options { "--force-confold"; };\n' |
    inside tee /etc/apt/apt.conf.d/99redis-tp-check >/dev/null
  inside timeout 60 systemctl start redis-server || return 1
  inside redis-cli info server | grep -q '^redis_tp_version' && { echo "not Debian's"; return 1; }
  [[ $(inside redis-cli set from-debian 1) == OK && $(inside redis-cli save) == OK ]]
}
claim "README under systemd: Debian's redis-server runs as the machine's service" debian_runs
swapped_in() {
  run_in_src "${cmds_in[1]}" >"$work/apt-in.log" 2>&1 || { tail -5 "$work/apt-in.log"; return 1; }
  for _ in $(seq 200); do [[ $(unit_prop SubState) == running ]] && break; sleep 0.1; done
  local enabled
  enabled=$(inside systemctl is-enabled redis-server)
  echo "$(unit_prop ActiveState) ($(unit_prop SubState)), enabled: $enabled"
  [[ $(unit_prop SubState) == running && $enabled == enabled ]] || return 1
  inside redis-cli info server | grep -q '^redis_tp_version' || { echo "not redis-tp"; return 1; }
  [[ $(inside redis-cli get from-debian) == 1 ]] || { echo "Debian's data not loaded"; return 1; }
  [[ $(inside redis-cli set from-redis-tp 2) == OK && $(inside redis-cli save) == OK ]]
}
claim "README under systemd: '${cmds_in[1]}' restarts the service as redis-tp, with the data" \
  swapped_in
# The development package on that machine: libredistp(3)'s example, as man prints it (port
# 6379 included), built with pkg-config alone, takes a lock on the service; purged afterwards.
dev_package() {
  run_in_src "apt-get install ./build/deb/libredistp-dev_*.deb" >"$work/apt-dev.log" 2>&1 ||
    { tail -5 "$work/apt-dev.log"; return 1; }
  inside sh -c "MANWIDTH=200 man 3 libredistp | sed -n '/^EXAMPLE/,/^FILES/p' | sed '1d;\$d' |
    sed 's/^       //' >/tmp/example.cc" || return 1
  inside sh -c 'g++ -o /tmp/example /tmp/example.cc $(pkg-config --cflags --libs redistp)' ||
    return 1
  inside timeout 20 /tmp/example | grep -E '^holding jobs:lock, token [0-9]+$' || return 1
  run_in_src "apt-get purge libredistp-dev" >"$work/apt-dev.log" 2>&1 || return 1
  ! inside pkg-config --exists redistp
}
claim "under systemd: libredistp-dev installs, man's example builds with pkg-config, takes a lock" \
  dev_package
swapped_back() {
  run_in_src "${cmds_back[0]}" >"$work/apt-back.log" 2>&1 ||
    { tail -5 "$work/apt-back.log"; return 1; }
  run_in_src "${cmds_back[1]}" || return 1
  for _ in $(seq 200); do [[ $(unit_prop SubState) == running ]] && break; sleep 0.1; done
  echo "$(unit_prop ActiveState) ($(unit_prop SubState))"
  [[ $(unit_prop SubState) == running ]] || return 1
  inside redis-cli info server | grep -q '^redis_tp_version' && { echo "still redis-tp"; return 1; }
  [[ $(inside redis-cli get from-debian) == 1 && $(inside redis-cli get from-redis-tp) == 2 ]]
}
claim "README under systemd: '${cmds_back[0]}', '${cmds_back[1]}': Debian's Redis, the data kept" \
  swapped_back
[[ -n $init ]] && inside systemctl poweroff 2>/dev/null
wait "$container" 2>/dev/null
container=
exit $((claim_failures > 0))
