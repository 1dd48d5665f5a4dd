#!/usr/bin/env bash
# Enforces the source layering: util -> protocol -> types -> db -> watch -> server -> acl -> scripting ->
# persistence -> replication -> cluster -> commands.
# A file may include project headers only from its own layer or a lower one. The client library
# and the tools are separate components with their own rule (below).
set -u
cd "$(dirname "$0")/.."
layers=(util protocol types db watch server acl scripting persistence replication cluster commands)
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
# Components outside the server's layers: the client library (src/client) may include only
# itself and src/util; the command-line tools (src/tools) only the client library and src/util.
check_component() {
  local dir=$1 allowed=$2 f inc dep
  for f in src/"$dir"/*.h src/"$dir"/*.cc; do
    [[ -e $f ]] || continue
    while IFS= read -r inc; do
      dep=${inc%%/*}
      if [[ " $allowed " != *" $dep "* ]]; then
        echo "layering: $f includes \"$inc\" ($dir may include only: $allowed)"
        bad=1
      fi
    done < <(sed -nE 's/^#include "([a-z_]+\/[^"]+)".*/\1/p' "$f")
  done
}
check_component client "client util"
check_component tools "tools client util"
exit $bad
