# shellcheck shell=bash
# The load tool shared by the benchmark scripts (sourced, not run): where it lives and how it is
# built.
#
# Model: utils/coord-bench/*.cc is one small C++ program, `coord-bench`, with a subcommand per
# measurement. Every script that uses it calls coord_tool_build first, which compiles it with
# g++ into build/coord-bench/ only when the binary is missing or older than any of its sources,
# so two scripts never build it two different ways. The binary is written under a temporary
# name and renamed, so a failed or interrupted compile never leaves a half-written tool.
# Requires bench_log (utils/bench/servers.sh) and COORD_TOOL_ROOT, the repository root.

# Prints the path of the tool binary.
coord_tool_path() {
  printf '%s\n' "$COORD_TOOL_ROOT/build/coord-bench/coord-bench"
}

# Compiles the tool when it is missing or stale. Returns non-zero (after saying why) when the
# compile fails; never exits the caller's shell.
coord_tool_build() {
  local src_dir="$COORD_TOOL_ROOT/utils/coord-bench" tool src stale=0
  tool=$(coord_tool_path)
  [[ -x $tool ]] || stale=1
  for src in "$src_dir"/*.cc "$src_dir"/*.h; do
    [[ $src -nt $tool ]] && stale=1
  done
  ((stale)) || return 0
  bench_log "coord-bench: compiling $tool"
  mkdir -p "$(dirname "$tool")" || return 1
  if ! g++ -std=c++20 -O2 -Wall -Wextra -o "$tool.tmp" "$src_dir"/*.cc; then
    rm -f -- "$tool.tmp"
    bench_log "coord-bench: the load tool did not compile"
    return 1
  fi
  mv -f -- "$tool.tmp" "$tool"
}
