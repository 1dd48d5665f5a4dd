// The tester's policy table: which commands it never sends and which replies it compares by
// something weaker than byte equality, each with its reason. It is the code twin of
// utils/difftest/KNOWN-DIFFERENCES.md; a row here without a reason there (or the reverse) is a
// bug in the tester.
//
// Matching. Rules are looked up by the full name first ("client|list"), then by the container
// ("client"), then by the wildcard "*|help". Everything else is
// compared exactly: same RESP kinds, same bytes, same order. Errors are always compared exactly,
// whatever the rule.
//
// Encoding-dependent order (kEncodingOrder). Redis 7.0 replies with the elements of a set or a
// hash in the order of its encoding: an intset is sorted, a listpack keeps insertion order (both
// must match exactly), a hash table's order is its own. Such a reply is compared exactly first;
// when it differs, the runner asks both servers OBJECT ENCODING of the source keys on the same
// connection (the step is the last of its pipeline batch, so nothing ran since): the encodings
// must be equal, and when one of them is a hash table (or a skiplist, whose ZSCAN walks a hash
// table) the reply is compared under the relaxed form `EncodingRelaxation` gives.
#pragma once

#include <string>
#include <vector>

#include "resp.h"

namespace difftest {

enum class Rule {
  kExact,          // byte-for-byte (the default)
  kNeverSend,      // the generator never draws it
  kShape,          // same top-level RESP kind only (errors still compared exactly)
  kTolerance,      // integers equal, or both >= 0 and within `tolerance` (TTL-like replies)
  kUnordered,      // same elements in any order (hash-table iteration order)
  kHello,          // a map with the `id` and `redirect` values ignored (connection ids differ)
  kSameSize,       // random picks: same RESP kind and, for aggregates, the same number of elements
  kEncodingOrder,  // exact, unless the source is hash-table encoded (see above)
  kLexRange,       // exact, unless the sorted set's scores differ (see below)
  kTimeMasked,     // exact once the times in it are masked (see MaskTimes)
};

// Stream replies that show times (kTimeMasked): XPENDING's extended form (each entry's idle
// time), XINFO CONSUMERS (each consumer's `idle`) and XINFO STREAM FULL (a consumer's
// `seen-time`, the delivery times in the groups' and consumers' pending lists). The two servers
// deliver the same entries moments apart, so those numbers differ by the clock alone; every
// other field, the delivery counts included, is compared exactly. `name` is the policy name
// ("xpending", "xinfo|consumers", "xinfo|stream"); the reply's shape says which form it is, so
// this works on the elements of an EXEC reply too. RESP2 (flat key-value arrays) and RESP3
// (maps) alike.
void MaskTimes(const std::string& name, Value& reply);

// Lex ranges over mixed scores (kLexRange). Redis documents ZRANGEBYLEX and its kin for sorted
// sets whose members all have one score; over mixed scores the result is unspecified, and in a
// skiplist it depends on the random levels of the nodes (two Redis processes disagree). Such a
// reply is compared exactly first; when it differs, the runner asks both servers the lowest and
// the highest score (ZRANGE key 0 0 / -1 -1 WITHSCORES): if they differ the reply is compared by
// kind alone. Writes by lex range are generated on the one-score key `z:lex` only.
bool IsLexRange(const std::string& name, const std::vector<std::string>& argv);

// How a kEncodingOrder reply is compared once a source key is known to be hash-table encoded.
enum class Relaxed {
  kMultiset,  // the same elements in any order (HGETALL: the same field-value pairs)
  kSize,      // the same kind and number of elements (SORT .. BY nosort LIMIT: a different slice)
  kShape,     // the same kind only (SSCAN, HSCAN, ZSCAN: cursors are table positions)
};

// The keys whose encodings decide a kEncodingOrder command's order (argv as sent), and how its
// reply is compared when one of them is hash-table encoded.
std::vector<std::string> EncodingSourceKeys(const std::string& name,
                                            const std::vector<std::string>& argv);
Relaxed EncodingRelaxation(const std::string& name, const std::vector<std::string>& argv);
// True when an OBJECT ENCODING reply names an encoding whose iteration order is unspecified.
bool UnorderedEncoding(const std::string& encoding);
// Compares two replies under a relaxation; on a difference returns false and sets `why`.
bool SameRelaxed(const Value& ours, const Value& theirs, Relaxed how, bool pairs, std::string& why);

struct PolicyRow {
  const char* command;  // lower case, "container|sub" for a subcommand, "*|help" wildcard
  Rule rule;
  long long tolerance;  // for kTolerance
  const char* reason;
};

// True for `CONFIG GET notify-keyspace-events` (the parameter alone, any case): compared exactly,
// unlike other CONFIG GETs, since the canonical form of the flags is what a client reads back.
bool ExactConfigGet(const std::string& name, const std::vector<std::string>& argv);

// True for the commands whose notification messages are compared in any order (SORT, SORT_RO:
// key misses of BY and GET patterns come in the order of the source, a set's hash table), or,
// with LIMIT, by number only (BY nosort takes a different slice of a hash-table set).
bool StreamRelaxed(const std::string& name);

// The notify-keyspace-events flags every reset starts from when keyspace events are compared.
extern const char* const kResetNotifyFlags;

// All rows, in table order.
const std::vector<PolicyRow>& PolicyTable();

// What the persistence round trips (roundtrip.h) do not compare, or compare more weakly, each
// with its reason (KNOWN-DIFFERENCES.md, "Persistence round trips").
struct RoundTripExemption {
  const char* what;
  const char* reason;
};
const std::vector<RoundTripExemption>& RoundTripExemptions();

// The rule for `name` ("get", "client|list"), with the fallbacks described above.
const PolicyRow* FindPolicy(const std::string& name);

// Compares two replies under `rule`; on a difference returns false and sets `why`.
bool SameReply(const Value& ours, const Value& theirs, const PolicyRow* rule, std::string& why);

}  // namespace difftest
