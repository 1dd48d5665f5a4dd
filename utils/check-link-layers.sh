#!/usr/bin/env bash
# The layering rule at link level: no object of a layer may need a symbol that only a higher
# layer defines. utils/check-layers.sh checks the #include lines; this checks what the compiler
# actually emitted (a declaration written by hand, an extern, a call through a forward-declared
# function), so an upward dependency fails the build even when no include shows it.
# Usage: utils/check-link-layers.sh BUILD_DIR LAYER... (lowest first), reading the layers'
# archives BUILD_DIR/lib/libtp_<layer>.a (the Makefile's). Prints each violation (the object, the
# symbol, the layer that defines it) and exits 1 if there is any.
set -u
export LC_ALL=C
build=$1
shift
layers=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The global symbols each layer defines (strong or weak), and those its objects leave undefined.
for layer in "${layers[@]}"; do
  lib=$build/lib/libtp_$layer.a
  if [[ ! -e $lib ]]; then
    echo "layering (link): $lib is missing" >&2
    exit 1
  fi
  nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u >"$tmp/$layer.def"
  # "lib.a:member.o: U symbol" with -A: the member names the object.
  nm -A -u "$lib" 2>/dev/null | awk '{sub(/:$/, "", $1); print $NF "\t" $1}' | sort -u \
    >"$tmp/$layer.undef"
done
bad=0
for i in "${!layers[@]}"; do
  low=${layers[$i]}
  # Symbols the lower layer defines itself (a weak copy of an inline function, say) are its own.
  for ((j = i + 1; j < ${#layers[@]}; j++)); do
    high=${layers[$j]}
    while IFS=$'\t' read -r sym obj; do
      grep -qxF -- "$sym" "$tmp/$low.def" && continue
      echo "layering (link): $obj needs $(c++filt -- "$sym") from layer $high"
      bad=1
    done < <(join -t $'\t' <(sort "$tmp/$low.undef") <(sort "$tmp/$high.def" | sed 's/$/\t/' | cut -f1) 2>/dev/null)
  done
done
exit $bad
