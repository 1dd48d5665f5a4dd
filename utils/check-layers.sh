#!/usr/bin/env bash
# Enforces the source layering: util -> protocol -> types -> db -> watch -> server -> commands.
# A file may include project headers only from its own layer or a lower one.
set -u
cd "$(dirname "$0")/.."
layers=(util protocol types db watch server commands)
rank() {
  local i
  for i in "${!layers[@]}"; do [[ ${layers[$i]} == "$1" ]] && { echo "$i"; return; }; done
  echo 99
}
bad=0
for i in "${!layers[@]}"; do
  layer=${layers[$i]}
  for f in src/"$layer"/*.h src/"$layer"/*.cc; do
    [[ -e $f ]] || continue
    while IFS= read -r inc; do
      dep=${inc%%/*}
      r=$(rank "$dep")
      if (( r > i && r != 99 )); then
        echo "layering: $f includes \"$inc\" (layer $dep is above $layer)"
        bad=1
      fi
    done < <(sed -nE 's/^#include "([a-z_]+\/[^"]+)".*/\1/p' "$f")
  done
done
exit $bad
