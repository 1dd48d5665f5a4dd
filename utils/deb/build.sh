#!/usr/bin/env bash
# Builds build/deb/redis-tp-server_<version>_<arch>.deb with dpkg-deb (no debhelper needed): the
# release server installed as /usr/bin/redis-server, the tools, the docs, a Type=notify systemd
# unit named redis-server.service, and the maintainer scripts of this directory. The package
# Provides, Conflicts with and Replaces Debian's redis-server, so `apt install ./<deb>` swaps it
# in and `apt install redis-server` swaps Debian's Redis back; the config, data, log and user
# of the Debian layout are kept both ways (see postinst and postrm).
#
# Usage: utils/deb/build.sh   (run by `make deb`, after `make install` into a staging tree)
set -euo pipefail
cd "$(dirname "$0")/../.."
version=$(sed -n 's/.*kRedisTpVersion = "\(.*\)";/\1/p' src/server/version.h)
arch=$(dpkg --print-architecture)
out=build/deb
stage=$out/stage
rm -rf "$stage"
mkdir -p "$stage"
make --no-print-directory -s install DESTDIR="$PWD/$stage" PREFIX=/usr SANITIZE=0

# The library and headers belong to a development package, not to the server's; the debug
# information stays in the build tree (build/release keeps the unstripped programs).
rm -rf "$stage/usr/include" "$stage/usr/lib"
strip --strip-debug "$stage"/usr/bin/*
# Manual pages compressed as Debian policy asks (gzip -9n: no name or time stamp inside, so the
# package is reproducible). libredistp(3) belongs to the development package too.
rm -rf "$stage/usr/share/man/man3"
gzip -9n "$stage"/usr/share/man/man1/*.1
mkdir -p "$stage/lib/systemd/system" "$stage/DEBIAN"
mv "$stage/usr/share/doc/redis-tp" "$stage/usr/share/doc/redis-tp-server"
mv "$stage/usr/share/redis-tp/redis-server.service" "$stage/lib/systemd/system/"
mv "$stage/usr/share/redis-tp/redis-server" "$stage/usr/share/redis-tp/logrotate"
# Our redis.conf, set for the Debian layout (Debian's own choices for these five lines).
sed -E -e 's|^#? *dir .*|dir /var/lib/redis|' \
    -e 's|^#? *logfile .*|logfile /var/log/redis/redis-server.log|' \
    -e 's|^#? *pidfile .*|pidfile /run/redis/redis-server.pid|' \
    -e 's|^#? *daemonize .*|daemonize yes|' \
    -e 's|^#? *supervised .*|supervised auto|' \
    "$stage/usr/share/redis-tp/redis.conf" > "$stage/usr/share/redis-tp/redis.conf.debian"
for k in dir logfile pidfile daemonize supervised; do
  grep -q "^$k " "$stage/usr/share/redis-tp/redis.conf.debian" || {
    case $k in
      dir) echo "dir /var/lib/redis" ;;
      logfile) echo "logfile /var/log/redis/redis-server.log" ;;
      pidfile) echo "pidfile /run/redis/redis-server.pid" ;;
      daemonize) echo "daemonize yes" ;;
      supervised) echo "supervised auto" ;;
    esac >> "$stage/usr/share/redis-tp/redis.conf.debian"
  }
done
cat > "$stage/usr/share/doc/redis-tp-server/copyright" <<'TXT'
redis-tp: a Redis-compatible server with temporary keys and existence watches.
Written from scratch by the redis-tp developers; no code of Redis or any other server is
included. It links Debian's libraries (libevent, jemalloc, Lua 5.1, lua-cjson, lua-bitop,
OpenSSL, liblzf, libsystemd), whose copyrights are in their own packages.
TXT

# Runtime dependencies: the Debian package of every shared library the programs link.
# Direct dependencies only (NEEDED entries), each found where the dynamic linker finds it.
deps=$(for b in "$stage"/usr/bin/*; do
         needed=$(objdump -p "$b" | awk '/NEEDED/{print $2}')
         ldd "$b" | awk -v n=" $(echo $needed) " '$2 == "=>" && index(n, " " $1 " ") {print $3}'
       done | sort -u |
  while read -r lib; do
    dpkg -S "$lib" 2>/dev/null || dpkg -S "$(readlink -f "$lib")" 2>/dev/null ||
      dpkg -S "/usr$lib" 2>/dev/null || { echo "no package owns $lib" >&2; exit 1; }
  done | cut -d: -f1 | sort -u | paste -sd, | sed 's/,/, /g')
size=$(du -sk "$stage" --exclude=DEBIAN | cut -f1)
cat > "$stage/DEBIAN/control" <<CTL
Package: redis-tp-server
Version: $version-1
Architecture: $arch
Maintainer: redis-tp developers <redis-tp@localhost>
Installed-Size: $size
Depends: adduser, $deps
Provides: redis-server
Conflicts: redis-server
Replaces: redis-server
Section: database
Priority: optional
Description: Redis-compatible server with temporary keys and existence watches
 redis-tp answers Redis 7.0's protocol, commands, configuration and data files, and adds
 keys owned by a connection (deleted when it ends) and existence watches, for locks and
 leader election without TTL guessing. Installed as /usr/bin/redis-server in Debian's
 layout, in place of Debian's redis-server package.
CTL
install -m 755 utils/deb/postinst utils/deb/prerm utils/deb/postrm "$stage/DEBIAN/"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out/redis-tp-server_${version}-1_${arch}.deb" >/dev/null
echo "$out/redis-tp-server_${version}-1_${arch}.deb"
