// ZSetObject: the value of a sorted-set key, and its TypeOps row.
//
// Redis 7.0 keeps a sorted set in one of two encodings:
//   listpack   at most zset-max-listpack-entries members, none longer than
//              zset-max-listpack-value bytes: member, score, member, score ... in one listpack
//              (types/listpack.h), kept in (score, member) order; a score is stored as Redis
//              writes it (an integral score as an integer, others as "%.17g" text);
//   skiplist   otherwise: a skiplist ordered by (score, member) plus a member index
//              (types/zset_index.h).
// A new sorted set is a listpack unless its first member is already over the limits; a write
// that would pass a limit converts it to a skiplist. Loading a ZSET_2 record converts a set that
// fits back to a listpack, as Redis does. OBJECT ENCODING answers "listpack" or "skiplist".
//
// RDB: a listpack sorted set is RDB_TYPE_ZSET_LISTPACK (the blob), a skiplist one RDB_TYPE_ZSET_2
// (the count, then member and binary score from the highest to the lowest, Redis's order).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "types/listpack.h"
#include "types/type_limits.h"
#include "types/type_ops.h"
#include "types/value.h"
#include "types/zset_index.h"
#include "util/numbers.h"

namespace redistp {

// The text Redis stores for a score in a listpack: "inf"/"-inf", "0"/"-0", an integral value in
// the 64-bit range as an integer, anything else with "%.17g". Returns the length written into
// buf (at least 32 bytes).
size_t ScoreText(double score, char* buf);

class ZSetObject {
 public:
  enum class Encoding : uint8_t { kListpack, kSkiplist };
  enum class AddResult : uint8_t { kAdded, kUpdated, kUnchanged };

  // An empty sorted set in the encoding Redis picks for a first member `first`.
  ZSetObject(std::string_view first, const TypeLimits& limits);
  ZSetObject(const ZSetObject&) = delete;
  ZSetObject& operator=(const ZSetObject&) = delete;

  Encoding encoding() const { return encoding_; }
  size_t size() const;
  std::optional<double> Score(std::string_view member);
  // Adds `member` with `score` (never NaN), or moves an existing member to the new score.
  AddResult Add(std::string_view member, double score, const TypeLimits& limits);
  bool Remove(std::string_view member);
  // Calls fn(member, score) in ascending (score, member) order. No change during the walk.
  template <typename Fn>
  void ForEach(Fn&& fn) const;

  ZSetObject* Clone() const;
  size_t MemoryBytes(size_t samples) const;
  void ConvertToSkiplist();
  void ConvertToListpack();
  static ZSetObject* FromListpack(Listpack lp);

  const Listpack& listpack() const { return lp_; }
  const ZSetIndex& index() const { return index_; }
  // Mutable access for ZSCAN, whose ZSetIndex::Scan pauses the table's rehashing while it walks.
  ZSetIndex& index() { return index_; }

 private:
  ZSetObject() = default;
  static double ScoreOf(const ListpackEntry& e);
  // Position of member in the listpack, or kNone.
  Listpack::Pos FindListpack(std::string_view member) const;
  void InsertListpack(std::string_view member, double score);

  Encoding encoding_ = Encoding::kListpack;
  Listpack lp_;
  ZSetIndex index_;
};

template <typename Fn>
void ZSetObject::ForEach(Fn&& fn) const {
  if (encoding_ == Encoding::kSkiplist) {
    for (const ZNode* n = index_.list().first(); n != nullptr; n = n->next()) {
      fn(n->member(), n->score);
    }
    return;
  }
  char buf[kMaxInt64Chars + 1];
  for (Listpack::Pos p = lp_.First(); p != Listpack::kNone; p = lp_.Next(lp_.Next(p))) {
    ListpackEntry m = lp_.Get(p);
    std::string_view ms = m.is_int ? std::string_view(buf, FormatInt64(m.num, buf)) : m.str;
    fn(ms, ScoreOf(lp_.Get(lp_.Next(p))));
  }
}

extern const TypeOps kZSetOps;

inline ZSetObject& ZSetOf(Value& v) { return *static_cast<ZSetObject*>(v.object()); }
inline const ZSetObject& ZSetOf(const Value& v) {
  return *static_cast<const ZSetObject*>(v.object());
}
Value NewZSetValue(std::string_view first, const TypeLimits& limits);

Result<Value> LoadZSet2(RdbReader& r, const TypeLimits& limits);
Result<Value> LoadZSetListpack(RdbReader& r, const TypeLimits& limits);

}  // namespace redistp
