#!/usr/bin/env bash
# Differential test of redis-tp against Debian's Redis 7.0 (utils/difftest/).
#
# Usage: utils/difftest.sh [--count N] [--seed S] [--seeds "S1 S2 ..."] [--minutes M]
#                          [difftest options]
#   --count N    commands per seed (default 100000)
#   --seed S     one seed (default: one from the clock, printed)
#   --seeds L    several seeds, one run each, stopping at the first divergence
#   --minutes M  run for M minutes: the seeds given, then seed+1, seed+2 ... until the time is
#                up (a run that has started finishes); stops at the first divergence
# Other options go to build/release/difftest as they are (--round-trips N for the persistence
# round trips, --connections, --shrink-seconds, --list, ...). For hours of round trips:
#   utils/difftest.sh --minutes 240 --count 20000 --round-trips 50
# The tool and the server are built first. At the end the runs are added up (commands, round
# trips, files checked). Exit status: 0 when every run matched, 1 on a divergence, 2 on a setup
# failure.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

count=100000
seeds=""
minutes=0
args=()
while (($#)); do
  case $1 in
    --count) count=$2; shift 2 ;;
    --seed) seeds=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done

make --no-print-directory all difftest >&2
if [[ ! -x /usr/bin/redis-server ]]; then
  echo "difftest: /usr/bin/redis-server is missing (deps/install-deps.sh installs it)" >&2
  exit 2
fi
if [[ -z $seeds ]]; then seeds=$(( $(date +%s%N) % 1000000007 )); fi
deadline=$(( $(date +%s) + minutes * 60 ))

runs=0 commands=0 round_trips=0 files=0
status=0
run_one() {
  local seed=$1 out
  out=$(mktemp)
  set +e
  build/release/difftest --ours src/redis-server --count "$count" --seed "$seed" \
    ${args[@]+"${args[@]}"} | tee "$out"
  status=${PIPESTATUS[0]}
  set -e
  runs=$((runs + 1))
  # "N commands matched in", "R round trips (", "F files checked".
  local n
  n=$(grep -o '[0-9]* commands matched' "$out" | grep -o '^[0-9]*' || true)
  commands=$((commands + ${n:-0}))
  n=$(grep -o '[0-9]* round trips (' "$out" | grep -o '^[0-9]*' || true)
  round_trips=$((round_trips + ${n:-0}))
  n=$(grep -o '[0-9]* files checked' "$out" | grep -o '^[0-9]*' || true)
  files=$((files + ${n:-0}))
  rm -f "$out"
}

last=0
for seed in $seeds; do
  run_one "$seed"
  last=$seed
  ((status == 0)) || break
done
while ((status == 0 && minutes > 0 && $(date +%s) < deadline)); do
  last=$((last + 1))
  run_one "$last"
done
echo "difftest: $runs runs, $commands commands matched, $round_trips round trips," \
  "$files files checked, exit status $status"
exit "$status"
