#!/usr/bin/env bash
# Runs tcl test files under CPU load, each several times in a row, to find the tests whose
# outcome depends on timing (a CI machine is slower and noisier than a quiet workstation).
#
# Usage: tests/stress-run.sh [--burners N] [--times K] [--server PATH] FILE...
#
#   --burners N   busy-loop processes started for the run (default 2: as many as CI's cores)
#   --times K     runs of each file, in a row (default 3); a file passes if all K pass
#   --server PATH the binary under test, passed to tests/test_helper.tcl (default ours)
#
# Each burner is `sh -c 'while :; do :; done'` under `timeout`, so it ends by itself even if this
# script is killed; the script also stops them (by their pids) when it exits. A failed run's
# output is kept in tests/tmp/stress.<pid>/<file>.<k>.log, and the harness keeps the servers' and
# sentinels' directories of failed tests in tests/tmp as usual. One line per run, then one summary
# line per file; the exit status is 1 if any run failed. Not part of `make test` (it takes K times
# the files' time); run it on the multi-server files you touch (tests/README.md, "Under load").
set -u
cd "$(dirname "$0")/.."

burners=2
times=3
server=()
files=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --burners) burners=$2; shift 2 ;;
    --times) times=$2; shift 2 ;;
    --server) server=(--server "$2"); shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "stress-run: unknown option $1" >&2; exit 2 ;;
    *) files+=("$1"); shift ;;
  esac
done
if [[ ${#files[@]} -eq 0 ]]; then
  echo "usage: tests/stress-run.sh [--burners N] [--times K] [--server PATH] FILE..." >&2
  exit 2
fi
if ! [[ $burners =~ ^[0-9]+$ && $times =~ ^[1-9][0-9]*$ ]]; then
  echo "stress-run: --burners and --times take counts" >&2
  exit 2
fi

# Every burner ends by itself after this many seconds: the per-file limit of the runner (600 s)
# for every run, plus a margin.
burner_seconds=$(( (${#files[@]} * times + 1) * 620 ))
burner_pids=()
stop_burners() {
  for pid in "${burner_pids[@]}"; do kill "$pid" 2>/dev/null; done
  burner_pids=()
}
trap stop_burners EXIT
trap 'exit 130' INT TERM
for ((i = 0; i < burners; i++)); do
  timeout "$burner_seconds" sh -c 'while :; do :; done' &
  burner_pids+=($!)
done

logdir=tests/tmp/stress.$$
mkdir -p "$logdir"
failed_runs=0
summary=()
for file in "${files[@]}"; do
  ok=0
  secs=()
  for ((k = 1; k <= times; k++)); do
    log=$logdir/$(basename "$file" .tcl).$k.log
    start=$(date +%s)
    if tclsh tests/test_helper.tcl "${server[@]}" --single "$file" >"$log" 2>&1; then
      ok=$((ok + 1))
      result=ok
      rm -f "$log"
    else
      failed_runs=$((failed_runs + 1))
      result="FAILED (output in $log)"
    fi
    secs+=($(($(date +%s) - start)))
    echo "[stress] $file run $k/$times under $burners burners: $result (${secs[-1]} s)"
    if [[ $result != ok ]]; then grep -E '^\[err\]|^    ' "$log" | head -n 40; fi
  done
  summary+=("[stress] $file: $ok/$times passed (${secs[*]} s)")
done
stop_burners
rmdir "$logdir" 2>/dev/null
printf '%s\n' "${summary[@]}"
[[ $failed_runs -eq 0 ]]
