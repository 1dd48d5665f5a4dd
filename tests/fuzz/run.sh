#!/usr/bin/env bash
# Runs each libFuzzer harness of build/fuzz for SECONDS on a fresh corpus seeded by
# tests/fuzz/make-corpus.py, and prints one line per harness in the test suite's form:
#   [ok]: fuzz request_parser_fuzz: 123456 executions in 10 s, no finding
#   [err]: fuzz dispatch_fuzz: crash-... (log: DIR/dispatch_fuzz.log)
# Exits non-zero on any finding. Usage: tests/fuzz/run.sh [SECONDS] [WORKDIR]
# A crashing input is kept in WORKDIR (default: a temporary directory, removed on success).
set -u
seconds=${1:-10}
cd "$(dirname "$0")/../.."
work=${2:-$(mktemp -d /tmp/redistp-fuzz.XXXXXX)}
mkdir -p "$work"
tests/fuzz/make-corpus.py "$work/seeds" || exit 1
rc=0
# Leaks of third-party libraries the harnesses cannot avoid (see the file).
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}
for f in request_parser_fuzz dispatch_fuzz rdb_load_fuzz lua_fuzz bus_message_fuzz; do
  bin=build/fuzz/$f
  name=${f%_fuzz}
  if [[ ! -x $bin ]]; then
    echo "[err]: fuzz $f: $bin is missing (make fuzz)"
    rc=1
    continue
  fi
  mkdir -p "$work/corpus-$name"
  log=$work/$f.log
  # -rss_limit_mb bounds memory; -timeout flags any single input running over 10 s as a hang.
  (cd "$work" && nice -n 15 "$OLDPWD/$bin" -max_total_time="$seconds" -timeout=10 \
     -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
     "corpus-$name" "seeds/$name" >"$log" 2>&1)
  frc=$?
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
  if [[ $frc -eq 0 ]]; then
    echo "[ok]: fuzz $f: ${execs:-?} executions in $seconds s, no finding"
  else
    what=$(grep -m1 -oE 'ERROR: [A-Za-z]+: [^ ]+|SUMMARY: .*|Test unit written to .*' "$log" | head -1)
    echo "[err]: fuzz $f: ${what:-exit $frc} (log: $log)"
    rc=1
  fi
done
[[ $rc -eq 0 && -z ${2:-} ]] && rm -rf "$work"
exit $rc
