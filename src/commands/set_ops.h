// Set algebra: intersection, union and difference of several sets, as operations on values
// that never see a client (the handlers of set_ops.cc parse, look the keys up, call these and
// reply).
//
// Sources are given as a vector of SetObject pointers, one per key in the command's order,
// nullptr for a key that does not exist (an empty set). The same object may appear more than
// once (SINTER a a): the operations never probe a set while walking that same set, because a
// probe may advance the set's incremental rehash under the walk.
//
// Results that are stored are new set values built as Redis builds them: an intset that
// converts to a hashtable when a member is not an integer or the set outgrows
// set-max-intset-entries, so OBJECT ENCODING of a *STORE destination answers what Redis's does.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

#include "types/set.h"
#include "types/type_limits.h"
#include "types/value.h"

namespace redistp {

class CommandTable;

// Registers SINTER SINTERCARD SINTERSTORE SUNION SUNIONSTORE SDIFF SDIFFSTORE (called by
// RegisterSetCommands).
void RegisterSetOpCommands(CommandTable& table);

// Calls fn(member) for each member of the intersection of `sets`, walking the smallest set;
// fn returns false to stop early (SINTERCARD's LIMIT). Nothing is called when a source is
// missing. O(N*M): N the smallest cardinality, M the number of sets.
template <typename Fn>
void ForEachIntersected(std::vector<SetObject*> sets, Fn&& fn) {
  for (SetObject* s : sets) {
    if (s == nullptr) return;
  }
  std::sort(sets.begin(), sets.end(),
            [](const SetObject* a, const SetObject* b) { return a->size() < b->size(); });
  SetObject* smallest = sets[0];
  // The others to probe, without the walked set itself (every member is in it) and repeats.
  std::vector<SetObject*> others;
  for (size_t i = 1; i < sets.size(); ++i) {
    if (sets[i] != smallest && std::find(others.begin(), others.end(), sets[i]) == others.end()) {
      others.push_back(sets[i]);
    }
  }
  smallest->ForEachWhile([&](std::string_view member) {
    for (SetObject* o : others) {
      if (!o->Contains(member)) return true;
    }
    return fn(member);
  });
}

// The intersection of `sets` as a new set value (possibly empty).
Value SetIntersection(const std::vector<SetObject*>& sets, const TypeLimits& limits);
// The union of `sets` as a new set value (empty when every source is).
Value SetUnion(const std::vector<SetObject*>& sets, const TypeLimits& limits);
// The members of sets[0] in none of the others, as a new set value. Picks Redis's cheaper
// strategy: probing every other set for each member of the first (about N*M/2 work), or
// copying the first and removing every member of the others (the total cardinality).
Value SetDifference(const std::vector<SetObject*>& sets, const TypeLimits& limits);

}  // namespace redistp
