#!/usr/bin/env bash
# Installs the Debian packages redis-tp needs, and only those that are missing.
#
# Usage: deps/install-deps.sh [--bench]
#   --bench   also the anchors of utils/bench-anchors.py: ZooKeeper 3.8 (the server's jar and a
#             JRE; not zookeeperd, which would start a system service), etcd 3.4 and their
#             python clients. Never needed by `make test`.
#
# Debian's redis-server (7.0) is a test dependency: the differential test (`make test`,
# utils/difftest.sh) and the benchmark compare redis-tp against it side by side. It is never a
# runtime dependency of redis-tp.
#
# Every dependency of the project is listed here and nowhere else; the Makefile
# calls this script before building, so a fresh clone needs nothing done by hand.
set -euo pipefail

packages=(
  g++ make pkg-config
  libevent-dev        # event loop
  libjemalloc-dev     # allocator and memory statistics
  liblua5.1-0-dev     # scripting: Lua 5.1
  lua-cjson-dev       # scripting: the cjson library scripts see
  lua-bitop-dev       # scripting: the bit library scripts see
  libhiredis-dev      # client side: tools, client library
  tcl                 # integration test suite
  tcl-tls             # test only: the suite's TLS clients (tests/unit/tls.tcl)
  openssl             # test only: the TLS tests make their certificates at run time
  redis-tools         # redis-cli / redis-benchmark for tests and benchmarks
  libgtest-dev        # unit tests
  libxxhash-dev       # key hashing (XXH3, seeded); DIGEST and IFDEQ/IFDNE (XXH3, unseeded); header-only (XXH_INLINE_ALL), nothing to link
  libssl-dev          # TLS (tls-port, tls-replication); SHA1 for DEBUG DIGEST and script hashes
  liblzf-dev          # LZF: RDB payload strings (DUMP/RESTORE, persistence), compressed list nodes
  libsystemd-dev      # sd_notify: `supervised systemd` (a Type=notify service unit)
  redis-server        # test only: the reference for the differential test and the benchmark
  clang libclang-rt-14-dev  # test only: the sanitizer flavour (make SANITIZE=1) and the fuzzers
  python3             # test only: the network fuzzer (utils/net-fuzz.py)
  python3-redis       # test only: the redis-py recipes (tests/recipes, docs/recipes.md)
  clang-format        # test only: the formatting check of make test
  systemd-container   # test only: systemd-nspawn, the container tests/service-check.sh boots
)

if [[ ${1:-} == --bench ]]; then
  packages+=(
    zookeeper         # bench only: ZooKeeper 3.8 (utils/bench-anchors.py starts its own)
    etcd-server       # bench only: etcd 3.4
    python3-kazoo     # bench only: ZooKeeper's python client (its Lock recipe)
    python3-etcd3     # bench only: etcd's python client
  )
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "deps: installing ${missing[*]}" >&2
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
