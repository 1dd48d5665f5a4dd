// ZSetObject: the value of a sorted-set key, and its TypeOps row.
//
// Redis 7.0 keeps a sorted set in one of two encodings:
//   listpack   at most zset-max-listpack-entries members, none longer than
//              zset-max-listpack-value bytes: member, score, member, score ... in one listpack
//              (types/listpack.h), kept in (score, member) order; a score is stored as Redis
//              writes it (an integral score as an integer, others as "%.17g" text);
//   skiplist   otherwise: a skiplist ordered by (score, member) plus a member index
//              (types/zset_index.h), allocated only in this encoding, whose presence is
//              what encoding() reports (the object is two pointers, 16 bytes).
// A new sorted set is a listpack unless its first member is already over the limits; a write
// that would pass a limit converts it to a skiplist. Loading a ZSET_2 record converts a set that
// fits back to a listpack, as Redis does. OBJECT ENCODING answers "listpack" or "skiplist".
//
// RDB: a listpack sorted set is RDB_TYPE_ZSET_LISTPACK (the blob), a skiplist one RDB_TYPE_ZSET_2
// (the count, then member and binary score from the highest to the lowest, Redis's order).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "types/listpack.h"
#include "types/packed_or_large.h"
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

  // The encoding is implied by the index: present exactly in the skiplist encoding.
  Encoding encoding() const { return rep_.is_large() ? Encoding::kSkiplist : Encoding::kListpack; }
  size_t size() const;
  std::optional<double> Score(std::string_view member);
  // Adds `member` with `score` (never NaN), or moves an existing member to the new score.
  AddResult Add(std::string_view member, double score, const TypeLimits& limits);
  // ZADD's step with one lookup: calls decide(current), current pointing at the member's score
  // or nullptr when it is absent; decide returns the score to store (never NaN), or nullopt to
  // leave the set as it is (then, or when it returns the current score, kUnchanged).
  template <typename Decide>
  AddResult Upsert(std::string_view member, const TypeLimits& limits, Decide&& decide);
  bool Remove(std::string_view member);
  // Calls fn(member, score) in ascending (score, member) order. No change during the walk.
  template <typename Fn>
  void ForEach(Fn&& fn) const;

  // ---- ranks and ranges (ZRANK, ZRANGE, ZCOUNT, ZREMRANGEBY*) ----
  // Ranks are 0-based, counted from the lowest (score, member), or from the highest when
  // `reverse`. On the skiplist every lookup below is O(log N) (spans), and a walk then costs
  // O(1) per member; on a listpack (at most zset-max-listpack-entries pairs) they are linear.
  // fn(member, score) gets views valid only during the call; no change during a walk.

  // The rank of `member`, or nullopt when it is not in the set.
  std::optional<size_t> Rank(std::string_view member, bool reverse);
  // Calls fn for the members of ranks start..end (start <= end < size()), in rank order.
  template <typename Fn>
  void WalkRanks(size_t start, size_t end, bool reverse, Fn&& fn) const;
  // Calls fn for the members inside `r` (a ScoreRange or LexRange), from the lowest or (reverse)
  // the highest, skipping the first `offset` of them and stopping after `limit` calls when
  // limit >= 0. Returns how many calls were made. A lex range assumes equal scores, as Redis's
  // does: it walks the (score, member) order.
  template <typename Range, typename Fn>
  size_t WalkRange(const Range& r, bool reverse, size_t offset, int64_t limit, Fn&& fn) const;
  // The number of members inside `r`.
  size_t Count(const ScoreRange& r) const;
  size_t Count(const LexRange& r) const;
  // Remove the members of ascending ranks start..end (start <= end < size()), or inside a
  // range; return how many went. An emptied set stays (the caller's Mutation deletes the key).
  size_t RemoveRanks(size_t start, size_t end);
  size_t RemoveRange(const ScoreRange& r);
  size_t RemoveRange(const LexRange& r);

  ZSetObject* Clone() const;
  size_t MemoryBytes(size_t samples) const;
  void ConvertToSkiplist();
  void ConvertToListpack();
  // A sorted set holding the validated listpack `lp` (RDB loading: Value::InPlace builds it
  // there).
  explicit ZSetObject(Listpack lp) : rep_(std::move(lp)) {}

  const Listpack& listpack() const { return lp(); }
  // The skiplist encoding's index; only valid when encoding() is kSkiplist. The mutable form
  // is for ZSCAN, whose ZSetIndex::Scan pauses the table's rehashing while it walks.
  const ZSetIndex& index() const { return *large(); }
  ZSetIndex& index() { return *large(); }

 private:
  ZSetObject() = default;
  static double ScoreOf(const ListpackEntry& e);
  // Listpack walking by pair: `p` is the position of a member; its score follows it.
  static constexpr size_t kMemberBuf = kMaxInt64Chars + 1;
  std::string_view MemberAt(Listpack::Pos p, char* buf) const {
    ListpackEntry m = lp().Get(p);
    return m.is_int ? std::string_view(buf, FormatInt64(m.num, buf)) : m.str;
  }
  double ScoreAt(Listpack::Pos p) const { return ScoreOf(lp().Get(lp().Next(p))); }
  Listpack::Pos NextPair(Listpack::Pos p) const { return lp().Next(lp().Next(p)); }
  Listpack::Pos PrevPair(Listpack::Pos p) const {
    Listpack::Pos s = lp().Prev(p);
    return s == Listpack::kNone ? Listpack::kNone : lp().Prev(s);
  }
  Listpack::Pos LastPair() const { return lp().Empty() ? Listpack::kNone : lp().Prev(lp().Last()); }
  // Whether a pair is inside the low / high end of a range (by score or by member bytes).
  static bool PairAboveMin(const ScoreRange& r, std::string_view, double s) {
    return r.AboveMin(s);
  }
  static bool PairBelowMax(const ScoreRange& r, std::string_view, double s) {
    return r.BelowMax(s);
  }
  static bool PairAboveMin(const LexRange& r, std::string_view m, double) { return r.AboveMin(m); }
  static bool PairBelowMax(const LexRange& r, std::string_view m, double) { return r.BelowMax(m); }
  // Redis's "is any member possibly inside" test before a range walk: the range is not empty,
  // the highest member is above its low end and the lowest below its high end.
  template <typename Range>
  bool MayIntersect(const Range& r) const;
  // Index (in pairs) of the first listpack pair inside `r` and how many consecutive pairs are.
  template <typename Range>
  std::pair<size_t, size_t> ListpackSpan(const Range& r) const;
  // Position of member in the listpack, or kNone.
  Listpack::Pos FindListpack(std::string_view member) const;
  void InsertListpack(std::string_view member, double score);
  // Adds a member known to be absent, converting to a skiplist first when a limit would pass.
  AddResult AddAbsent(std::string_view member, double score, const TypeLimits& limits);

  Listpack& lp() { return rep_.packed(); }
  const Listpack& lp() const { return rep_.packed(); }
  ZSetIndex* large() const { return rep_.large(); }

  // The listpack, or the index allocated only for the skiplist encoding: one word, so a small
  // sorted set pays for its listpack alone, inside its key's Value.
  PackedOrLarge<Listpack, ZSetIndex> rep_;
};

static_assert(sizeof(ZSetObject) == 8,
              "a sorted set lives inside its key's Value (Value::InPlace)");

template <typename Fn>
void ZSetObject::ForEach(Fn&& fn) const {
  if (encoding() == Encoding::kSkiplist) {
    for (const ZNode* n = large()->list().first(); n != nullptr; n = n->next()) {
      fn(n->member(), n->score);
    }
    return;
  }
  char buf[kMaxInt64Chars + 1];
  for (Listpack::Pos p = lp().First(); p != Listpack::kNone; p = lp().Next(lp().Next(p))) {
    ListpackEntry m = lp().Get(p);
    std::string_view ms = m.is_int ? std::string_view(buf, FormatInt64(m.num, buf)) : m.str;
    fn(ms, ScoreOf(lp().Get(lp().Next(p))));
  }
}

template <typename Decide>
ZSetObject::AddResult ZSetObject::Upsert(std::string_view member, const TypeLimits& limits,
                                         Decide&& decide) {
  double current;
  if (encoding() == Encoding::kListpack) {
    Listpack::Pos p = FindListpack(member);
    if (p != Listpack::kNone) {
      current = ScoreAt(p);
      std::optional<double> s = decide(&current);
      if (!s || *s == current) return AddResult::kUnchanged;
      lp().Delete(lp().Delete(p));
      InsertListpack(member, *s);
      return AddResult::kUpdated;
    }
  } else if (ZNode* n = large()->Find(member)) {
    current = n->score;
    std::optional<double> s = decide(&current);
    if (!s || *s == current) return AddResult::kUnchanged;
    large()->Add(member, *s);
    return AddResult::kUpdated;
  }
  std::optional<double> s = decide(nullptr);
  if (!s) return AddResult::kUnchanged;
  return AddAbsent(member, *s, limits);
}

template <typename Fn>
void ZSetObject::WalkRanks(size_t start, size_t end, bool reverse, Fn&& fn) const {
  size_t n = end - start + 1;
  if (encoding() == Encoding::kSkiplist) {
    const SkipList& l = large()->list();
    const ZNode* x = l.ByRank(reverse ? l.size() - start : start + 1);
    for (; n > 0 && x != nullptr; --n, x = reverse ? x->prev() : x->next()) {
      fn(x->member(), x->score);
    }
    return;
  }
  char buf[kMemberBuf];
  const int64_t at = static_cast<int64_t>(2 * start);
  Listpack::Pos p = lp().Seek(reverse ? -at - 2 : at);
  for (; n > 0 && p != Listpack::kNone; --n, p = reverse ? PrevPair(p) : NextPair(p)) {
    fn(MemberAt(p, buf), ScoreAt(p));
  }
}

template <typename Range>
bool ZSetObject::MayIntersect(const Range& r) const {
  if (r.Empty() || size() == 0) return false;
  if (encoding() == Encoding::kSkiplist) {
    const ZNode* lo = large()->list().first();
    const ZNode* hi = large()->list().last();
    return PairAboveMin(r, hi->member(), hi->score) && PairBelowMax(r, lo->member(), lo->score);
  }
  char buf[kMemberBuf];
  Listpack::Pos hi = LastPair(), lo = lp().First();
  return PairAboveMin(r, MemberAt(hi, buf), ScoreAt(hi)) &&
         PairBelowMax(r, MemberAt(lo, buf), ScoreAt(lo));
}

template <typename Range, typename Fn>
size_t ZSetObject::WalkRange(const Range& r, bool reverse, size_t offset, int64_t limit,
                             Fn&& fn) const {
  if (limit == 0 || !MayIntersect(r)) return 0;
  size_t calls = 0;
  if (encoding() == Encoding::kSkiplist) {
    const SkipList& l = large()->list();
    const ZNode* x = reverse ? l.LastInRange(r) : l.FirstInRange(r);
    if (x == nullptr) return 0;
    if (offset > 0) {
      // Jump over the offset by rank rather than node by node.
      size_t rank = l.Rank(x->score, x->member());
      if (reverse) {
        x = offset < rank ? l.ByRank(rank - offset) : nullptr;
      } else {
        x = l.ByRank(rank + offset);
      }
    }
    for (; x != nullptr && SkipList::InRange(x, r); x = reverse ? x->prev() : x->next()) {
      fn(x->member(), x->score);
      if (++calls == static_cast<size_t>(limit)) break;
    }
    return calls;
  }
  char buf[kMemberBuf];
  Listpack::Pos p = reverse ? LastPair() : lp().First();
  // Skip the pairs outside the starting end, then the offset, then call while inside.
  for (; p != Listpack::kNone; p = reverse ? PrevPair(p) : NextPair(p)) {
    std::string_view m = MemberAt(p, buf);
    double s = ScoreAt(p);
    if (reverse ? PairBelowMax(r, m, s) : PairAboveMin(r, m, s)) break;
  }
  for (; p != Listpack::kNone; p = reverse ? PrevPair(p) : NextPair(p)) {
    std::string_view m = MemberAt(p, buf);
    double s = ScoreAt(p);
    if (!(reverse ? PairAboveMin(r, m, s) : PairBelowMax(r, m, s))) break;
    if (offset > 0) {
      --offset;
      continue;
    }
    fn(m, s);
    if (++calls == static_cast<size_t>(limit)) break;
  }
  return calls;
}

extern const TypeOps kZSetOps;

inline ZSetObject& ZSetOf(Value& v) { return *static_cast<ZSetObject*>(v.object()); }
inline const ZSetObject& ZSetOf(const Value& v) {
  return *static_cast<const ZSetObject*>(v.object());
}
Value NewZSetValue(std::string_view first, const TypeLimits& limits);

Result<Value> LoadZSet2(RdbReader& r, const TypeLimits& limits);
Result<Value> LoadZSetListpack(RdbReader& r, const TypeLimits& limits);
// RDB_TYPE_ZSET: RDB_TYPE_ZSET_2 with scores as text (RdbReader::TextDouble).
Result<Value> LoadZSetText(RdbReader& r, const TypeLimits& limits);
// A sorted set from a loaded listpack of member/score pairs (RDB_TYPE_ZSET_LISTPACK, or a
// converted ziplist): an error if a score does not parse or a member repeats, the empty-key
// error if it has no pair; a skiplist if it has more members than zset-max-listpack-entries
// (Redis 7.0 checks only the count on load, not the members' lengths). `encoding` names the
// payload's container in the error, as for hashes.
Result<Value> ZSetFromLoadedListpack(Listpack lp, const TypeLimits& limits,
                                     const char* encoding = "Zset listpack");

}  // namespace redistp
