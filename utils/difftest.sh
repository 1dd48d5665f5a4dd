#!/usr/bin/env bash
# Differential test of redis-tp against Debian's Redis 7.0 (utils/difftest/).
#
# Usage: utils/difftest.sh [--count N] [--seed S] [--seeds "S1 S2 ..."] [difftest options]
#   --count N    commands per seed (default 100000)
#   --seed S     one seed (default: one from the clock, printed)
#   --seeds L    several seeds, one run each, stopping at the first divergence
# Other options go to build/release/difftest as they are (--connections, --shrink-seconds,
# --list, ...). The tool and the server are built first. Exit status: 0 when every run matched,
# 1 on a divergence, 2 on a setup failure.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

count=100000
seeds=""
args=()
while (($#)); do
  case $1 in
    --count) count=$2; shift 2 ;;
    --seed) seeds=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done

make --no-print-directory all difftest >&2
if [[ ! -x /usr/bin/redis-server ]]; then
  echo "difftest: /usr/bin/redis-server is missing (deps/install-deps.sh installs it)" >&2
  exit 2
fi
if [[ -z $seeds ]]; then seeds=$(( $(date +%s%N) % 1000000007 )); fi
for seed in $seeds; do
  build/release/difftest --ours src/redis-server --count "$count" --seed "$seed" "${args[@]}"
done
