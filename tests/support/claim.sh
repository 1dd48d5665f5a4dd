# Sourced by the shell checks (tests/install-check.sh, tests/deb-check.sh): one line per claim in
# the suite's format, so tests/run-all.sh counts them.
#   CLAIM_PREFIX  what every line starts with ("install", "deb")
#   CLAIM_OUT     a scratch file for the command's output (its tail is shown on failure)
# `claim <text> <command...>` runs the command and prints "[ok]: <prefix>: <text>" or
# "[err]: ..." with the output's last lines; `claim_failures` counts the failures so far.
claim_failures=0
claim() {
  local text=$1
  shift
  if "$@" >"$CLAIM_OUT" 2>&1; then
    echo "[ok]: $CLAIM_PREFIX: $text"
  else
    echo "[err]: $CLAIM_PREFIX: $text"
    tail -8 "$CLAIM_OUT"
    claim_failures=$((claim_failures + 1))
  fi
}
