// The tester's policy table: which commands it never sends and which replies it compares by
// something weaker than byte equality, each with its reason. It is the code twin of
// utils/difftest/KNOWN-DIFFERENCES.md; a row here without a reason there (or the reverse) is a
// bug in the tester.
//
// Matching. Rules are looked up by the full name first ("client|list"), then by the container
// ("client"), then by the wildcard "*|help". Everything else is
// compared exactly: same RESP kinds, same bytes, same order. Errors are always compared exactly,
// whatever the rule.
#pragma once

#include <string>
#include <vector>

#include "resp.h"

namespace difftest {

enum class Rule {
  kExact,      // byte-for-byte (the default)
  kNeverSend,  // the generator never draws it
  kShape,      // same top-level RESP kind only (errors still compared exactly)
  kTolerance,  // integers equal, or both >= 0 and within `tolerance` (TTL-like replies)
  kUnordered,  // same elements in any order (hash-table iteration order)
  kHello,      // HELLO's map, with the `id` value ignored (connection ids differ)
};

struct PolicyRow {
  const char* command;  // lower case, "container|sub" for a subcommand, "*|help" wildcard
  Rule rule;
  long long tolerance;  // for kTolerance
  const char* reason;
};

// All rows, in table order.
const std::vector<PolicyRow>& PolicyTable();

// The rule for `name` ("get", "client|list"), with the fallbacks described above.
const PolicyRow* FindPolicy(const std::string& name);

// Compares two replies under `rule`; on a difference returns false and sets `why`.
bool SameReply(const Value& ours, const Value& theirs, const PolicyRow* rule, std::string& why);

}  // namespace difftest
