#!/usr/bin/env bash
# Builds two packages into build/deb with dpkg-deb (no debhelper needed):
#
# redis-tp-server_<version>-1_<arch>.deb: the release server installed as /usr/bin/redis-server,
# the tools, their manual pages, the docs, a Type=notify systemd unit named redis-server.service,
# and the maintainer scripts of this directory. It Provides, Conflicts with and Replaces
# Debian's redis-server, so `apt install ./<deb>` swaps it in and `apt install redis-server`
# swaps Debian's Redis back; the config, data, log and user of the Debian layout are kept both
# ways (see postinst and postrm).
#
# libredistp-dev_<version>-1_<arch>.deb: the client library for building programs, as
# `make install` lays it out: the static archive libredistp.a and the pkg-config file redistp.pc
# in /usr/lib/<multiarch>, the headers in /usr/include/redistp/client, libredistp(3). Static
# only, so there is no SONAME and no runtime package: a program carries its copy. It depends on
# the -dev packages that redistp.pc names (hiredis, libevent), needed to link.
#
# Both carry the copyright note and a changelog.Debian.gz; the manual pages are gzip -9n'ed (no
# name or time stamp inside). Prints the two paths, the server's first.
# Usage: utils/deb/build.sh   (run by `make deb`, after `make install` into a staging tree)
set -euo pipefail
cd "$(dirname "$0")/../.."
version=$(sed -n 's/.*kRedisTpVersion = "\(.*\)";/\1/p' src/server/version.h)
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
out=build/deb
stage=$out/stage
dev=$out/stage-dev
rm -rf "$stage" "$dev"
mkdir -p "$stage" "$dev/usr/lib" "$dev/usr/share/man" "$dev/usr/share/doc/libredistp-dev" \
  "$dev/DEBIAN"
make --no-print-directory -s install DESTDIR="$PWD/$stage" PREFIX=/usr \
  LIBDIR="/usr/lib/$multiarch" SANITIZE=0

# The library, its headers and its page go to the development package. The debug information
# stays in the build tree (build/release keeps the unstripped programs and archive). Both are
# stripped as dh_strip does: programs of everything not needed to run (the server's -rdynamic
# symbols, which its crash report names, are dynamic ones and stay), the archive of its debug
# sections with deterministic member headers.
mv "$stage/usr/include" "$dev/usr/"
mv "$stage/usr/lib/$multiarch" "$dev/usr/lib/"
rmdir "$stage/usr/lib"
mv "$stage/usr/share/man/man3" "$dev/usr/share/man/"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage"/usr/bin/*
strip --strip-debug --enable-deterministic-archives "$dev/usr/lib/$multiarch/libredistp.a"
# Manual pages compressed as Debian policy asks (gzip -9n: no name or time stamp inside, so the
# package is reproducible).
gzip -9n "$stage"/usr/share/man/man1/*.1 "$dev"/usr/share/man/man3/*.3
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
Copyright (C) 2026 the redis-tp developers.
Written from scratch by the redis-tp developers; no code of Redis or any other server is
included. It links Debian's libraries (libevent, jemalloc, Lua 5.1, lua-cjson, lua-bitop,
OpenSSL, liblzf, libsystemd, hiredis), whose copyrights are in their own packages.
TXT
cat > "$dev/usr/share/doc/libredistp-dev/copyright" <<'TXT'
libredistp: the C++ client library of redis-tp (locks, sessions, elections, watches).
Copyright (C) 2026 the redis-tp developers.
Written from scratch by the redis-tp developers. Programs built with it also link Debian's
hiredis and libevent, whose copyrights are in their own packages.
TXT
install -m 644 docs/libredistp.md "$dev/usr/share/doc/libredistp-dev/"
# One changelog entry per package, for this version (the project's history is its git log).
for d in "$stage/usr/share/doc/redis-tp-server:redis-tp-server" \
  "$dev/usr/share/doc/libredistp-dev:libredistp-dev"; do
  {
    printf '%s (%s-1) unstable; urgency=medium\n\n' "${d##*:}" "$version"
    printf '  * redis-tp %s, built from its source tree.\n\n' "$version"
    printf ' -- %s  %s\n' "redis-tp developers <redis-tp@localhost>" \
      "$(date -R -d @"$(git log -1 --format=%ct 2>/dev/null || echo 0)")"
  } | gzip -9n >"${d%:*}/changelog.Debian.gz"
done

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
 redis-tp answers Redis 7.0's protocol, commands, configuration and data
 files, and adds keys owned by a connection (deleted when it ends) and
 existence watches, for locks and leader election without TTL guessing.
 Installed as /usr/bin/redis-server in Debian's layout, in place of
 Debian's redis-server package.
CTL
install -m 755 utils/deb/postinst utils/deb/prerm utils/deb/postrm "$stage/DEBIAN/"

# The development package's dependencies: what redistp.pc's Requires names, by package.
dev_deps=$(for m in hiredis libevent; do
             pc=$(pkg-config --variable=pcfiledir "$m")/$m.pc
             dpkg -S "$(readlink -f "$pc")" 2>/dev/null || dpkg -S "$pc"
           done | cut -d: -f1 | sort -u | paste -sd, | sed 's/,/, /g')
dev_size=$(du -sk "$dev" --exclude=DEBIAN | cut -f1)
cat > "$dev/DEBIAN/control" <<CTL
Package: libredistp-dev
Source: redis-tp
Version: $version-1
Architecture: $arch
Multi-Arch: same
Maintainer: redis-tp developers <redis-tp@localhost>
Installed-Size: $dev_size
Depends: $dev_deps
Section: libdevel
Priority: optional
Description: C++ client library for redis-tp (development files)
 libredistp is the C++20 client for redis-tp's temporary keys and
 existence watches, and the coordination recipes built on them: a fair
 or opportunistic lock with fencing tokens, sessions that keep locks
 through a reconnect, a read/write lock, a counting semaphore, a
 multi-lock and leader election, on the program's libevent loop or
 blocking.
 .
 This package holds the static library, its headers, the pkg-config
 file redistp and the manual page libredistp(3).
CTL
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out/redis-tp-server_${version}-1_${arch}.deb" >/dev/null
dpkg-deb --root-owner-group -Zxz --build "$dev" "$out/libredistp-dev_${version}-1_${arch}.deb" >/dev/null
echo "$out/redis-tp-server_${version}-1_${arch}.deb"
echo "$out/libredistp-dev_${version}-1_${arch}.deb"
