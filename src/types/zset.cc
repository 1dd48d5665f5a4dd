#include "types/zset.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "types/digest.h"
#include "types/serialize.h"

namespace redistp {
namespace {

const ZSetObject& Obj(const void* p) { return *static_cast<const ZSetObject*>(p); }

const char* ZSetEncoding(const void* p) {
  return Obj(p).encoding() == ZSetObject::Encoding::kListpack ? "listpack" : "skiplist";
}
void ZSetDestroy(void* p) { delete static_cast<ZSetObject*>(p); }
void* ZSetClone(const void* p) { return Obj(p).Clone(); }
size_t ZSetMemory(const void* p, size_t samples) { return Obj(p).MemoryBytes(samples); }
size_t ZSetLength(const void* p) { return Obj(p).size(); }

// Each (member, score) pair is digested on its own, the score as "%.17g" text, and pairs are
// combined with Xor.
void ZSetDigest(const void* p, ValueDigest& d) {
  Obj(p).ForEach([&d](std::string_view m, double score) {
    ValueDigest::Bytes pair = {};
    d.Mix(pair, m);
    char buf[64];
    int n = std::snprintf(buf, sizeof(buf), "%.17g", score);
    d.Mix(pair, buf, static_cast<size_t>(n));
    d.Xor(d.current(), pair, sizeof(pair));
  });
}

uint8_t ZSetRdbType(const void* p, int) {
  return Obj(p).encoding() == ZSetObject::Encoding::kListpack ? kRdbZSetListpack : kRdbZSet2;
}

void ZSetSerialize(const void* p, RdbWriter& w) {
  const ZSetObject& z = Obj(p);
  if (z.encoding() == ZSetObject::Encoding::kListpack) {
    w.String(z.listpack().Blob());
    return;
  }
  w.Length(z.size());
  for (const ZNode* n = z.index().list().last(); n != nullptr; n = n->prev()) {
    w.String(n->member());
    w.BinaryDouble(n->score);
  }
}

bool FitsListpack(std::string_view member, const TypeLimits& limits) {
  return member.size() <= limits.zset_max_listpack_value;
}

}  // namespace

const TypeOps kZSetOps = {
    .type = ValueType::kZSet,
    .encoding = ZSetEncoding,
    .destroy = ZSetDestroy,
    .clone = ZSetClone,
    .memory = ZSetMemory,
    .length = ZSetLength,
    .digest = ZSetDigest,
    .rdb_type = ZSetRdbType,
    .serialize = ZSetSerialize,
    .adopt = AdoptInPlace<ZSetObject>,
    .destruct = DestructInPlace<ZSetObject>,
};

size_t ScoreText(double score, char* buf) {
  if (std::isinf(score)) {
    std::memcpy(buf, score > 0 ? "inf" : "-inf", score > 0 ? 3 : 4);
    return score > 0 ? 3 : 4;
  }
  // Integral and inside half the 64-bit range (Redis's double2ll test): integer digits, which
  // the listpack stores as an integer. -0 is integral too and becomes "0", as in Redis 7.0.
  constexpr double kLimit = static_cast<double>(INT64_MAX / 2);
  if (score >= -kLimit && score <= kLimit && score == std::trunc(score)) {
    return FormatInt64(static_cast<int64_t>(score), buf);
  }
  return static_cast<size_t>(std::snprintf(buf, 32, "%.17g", score));
}

ZSetObject::ZSetObject(std::string_view first, const TypeLimits& limits)
    : rep_(limits.zset_max_listpack_entries == 0 || !FitsListpack(first, limits)
               ? std::make_unique<ZSetIndex>()
               : nullptr) {}

size_t ZSetObject::size() const {
  return encoding() == Encoding::kListpack ? lp().Size() / 2 : large()->size();
}

// A stored score is our own (or a validated RDB's) text: "inf", "-inf" or "%.17g" digits, so
// strtod on a stack copy reads it, with no allocation on this hot path of every listpack walk.
double ZSetObject::ScoreOf(const ListpackEntry& e) {
  if (e.is_int) return static_cast<double>(e.num);
  char buf[64];
  if (e.str.size() >= sizeof(buf)) {
    double d = 0;
    ParseDouble(e.str, &d);
    return d;
  }
  std::memcpy(buf, e.str.data(), e.str.size());
  buf[e.str.size()] = '\0';
  return std::strtod(buf, nullptr);
}

Listpack::Pos ZSetObject::FindListpack(std::string_view member) const {
  return lp().Find(lp().First(), member, 1);
}

// Inserts before the first pair that sorts after (score, member).
void ZSetObject::InsertListpack(std::string_view member, double score) {
  Listpack::Pos p = lp().First();
  for (; p != Listpack::kNone; p = lp().Next(lp().Next(p))) {
    double s = ScoreOf(lp().Get(lp().Next(p)));
    if (s > score) break;
    if (s == score) {
      char buf[kMemberBuf];
      if (MemberAt(p, buf) > member) break;
    }
  }
  char buf[32];
  std::string_view text(buf, ScoreText(score, buf));
  if (p == Listpack::kNone) {
    lp().Append(member);
    lp().Append(text);
  } else {
    Listpack::Pos at = lp().Insert(p, member);
    lp().Insert(lp().Next(at), text);
  }
}

std::optional<double> ZSetObject::Score(std::string_view member) {
  if (encoding() == Encoding::kSkiplist) return large()->Score(member);
  Listpack::Pos p = FindListpack(member);
  if (p == Listpack::kNone) return std::nullopt;
  return ScoreOf(lp().Get(lp().Next(p)));
}

ZSetObject::AddResult ZSetObject::Add(std::string_view member, double score,
                                      const TypeLimits& limits) {
  if (encoding() == Encoding::kListpack) {
    Listpack::Pos p = FindListpack(member);
    if (p != Listpack::kNone) {
      if (ScoreOf(lp().Get(lp().Next(p))) == score) return AddResult::kUnchanged;
      lp().Delete(lp().Delete(p));
      InsertListpack(member, score);
      return AddResult::kUpdated;
    }
    return AddAbsent(member, score, limits);
  }
  switch (large()->Add(member, score)) {
    case ZSetIndex::AddResult::kAdded:
      return AddResult::kAdded;
    case ZSetIndex::AddResult::kUpdated:
      return AddResult::kUpdated;
    default:
      return AddResult::kUnchanged;
  }
}

ZSetObject::AddResult ZSetObject::AddAbsent(std::string_view member, double score,
                                            const TypeLimits& limits) {
  if (encoding() == Encoding::kListpack) {
    if (size() + 1 <= limits.zset_max_listpack_entries && FitsListpack(member, limits) &&
        lp().SafeToAdd(member.size())) {
      InsertListpack(member, score);
      return AddResult::kAdded;
    }
    ConvertToSkiplist();
  }
  large()->Add(member, score);
  return AddResult::kAdded;
}

bool ZSetObject::Remove(std::string_view member) {
  if (encoding() == Encoding::kSkiplist) return large()->Remove(member);
  Listpack::Pos p = FindListpack(member);
  if (p == Listpack::kNone) return false;
  lp().Delete(lp().Delete(p));
  return true;
}

std::optional<size_t> ZSetObject::Rank(std::string_view member, bool reverse) {
  if (encoding() == Encoding::kSkiplist) return large()->Rank(member, reverse);
  size_t rank = 0;
  for (Listpack::Pos p = lp().First(); p != Listpack::kNone; p = NextPair(p), ++rank) {
    if (lp().Get(p).Equals(member)) return reverse ? size() - 1 - rank : rank;
  }
  return std::nullopt;
}

template <typename Range>
std::pair<size_t, size_t> ZSetObject::ListpackSpan(const Range& r) const {
  if (!MayIntersect(r)) return {0, 0};
  char buf[kMemberBuf];
  size_t first = 0, count = 0;
  Listpack::Pos p = lp().First();
  for (; p != Listpack::kNone; p = NextPair(p), ++first) {
    if (PairAboveMin(r, MemberAt(p, buf), ScoreAt(p))) break;
  }
  for (; p != Listpack::kNone; p = NextPair(p), ++count) {
    if (!PairBelowMax(r, MemberAt(p, buf), ScoreAt(p))) break;
  }
  return {first, count};
}

// On the skiplist, the ranks of the first and last member inside give the count in O(log N).
size_t ZSetObject::Count(const ScoreRange& r) const {
  if (encoding() == Encoding::kListpack) return ListpackSpan(r).second;
  if (!MayIntersect(r)) return 0;
  const SkipList& l = large()->list();
  const ZNode* lo = l.FirstInRange(r);
  const ZNode* hi = lo != nullptr ? l.LastInRange(r) : nullptr;
  if (hi == nullptr) return 0;
  return l.Rank(hi->score, hi->member()) - l.Rank(lo->score, lo->member()) + 1;
}

size_t ZSetObject::Count(const LexRange& r) const {
  if (encoding() == Encoding::kListpack) return ListpackSpan(r).second;
  if (!MayIntersect(r)) return 0;
  const SkipList& l = large()->list();
  const ZNode* lo = l.FirstInRange(r);
  const ZNode* hi = lo != nullptr ? l.LastInRange(r) : nullptr;
  if (hi == nullptr) return 0;
  size_t a = l.Rank(lo->score, lo->member()), b = l.Rank(hi->score, hi->member());
  return b >= a ? b - a + 1 : 0;
}

size_t ZSetObject::RemoveRanks(size_t start, size_t end) {
  if (encoding() == Encoding::kSkiplist) return large()->RemoveRankRange(start + 1, end + 1);
  return lp().DeleteRange(static_cast<int64_t>(2 * start), 2 * (end - start + 1)) / 2;
}

size_t ZSetObject::RemoveRange(const ScoreRange& r) {
  if (encoding() == Encoding::kSkiplist) return large()->RemoveRange(r);
  auto [first, count] = ListpackSpan(r);
  if (count == 0) return 0;
  return lp().DeleteRange(static_cast<int64_t>(2 * first), 2 * count) / 2;
}

size_t ZSetObject::RemoveRange(const LexRange& r) {
  if (encoding() == Encoding::kSkiplist) return large()->RemoveRange(r);
  auto [first, count] = ListpackSpan(r);
  if (count == 0) return 0;
  return lp().DeleteRange(static_cast<int64_t>(2 * first), 2 * count) / 2;
}

void ZSetObject::ConvertToSkiplist() {
  if (encoding() == Encoding::kSkiplist) return;
  auto index = std::make_unique<ZSetIndex>();
  ForEach([&index](std::string_view m, double s) { index->Add(m, s); });
  rep_.SetLarge(std::move(index));
}

void ZSetObject::ConvertToListpack() {
  if (encoding() == Encoding::kListpack) return;
  Listpack lp;
  char buf[32];
  ForEach([&](std::string_view m, double s) {
    lp.Append(m);
    lp.Append(std::string_view(buf, ScoreText(s, buf)));
  });
  rep_.SetPacked(std::move(lp));
}

ZSetObject* ZSetObject::Clone() const {
  auto* c = new ZSetObject();
  if (encoding() == Encoding::kListpack) {
    c->rep_.SetPacked(lp().Clone());
  } else {
    c->rep_.SetLarge(std::make_unique<ZSetIndex>());
    ForEach([c](std::string_view m, double s) { c->large()->Add(m, s); });
  }
  return c;
}

size_t ZSetObject::MemoryBytes(size_t samples) const {
  // The object itself lives in its key's Value.
  if (encoding() == Encoding::kListpack) return lp().AllocatedBytes();
  (void)samples;  // the index keeps an exact byte count, cheaper than sampling
  return large()->bytes();
}

Value NewZSetValue(std::string_view first, const TypeLimits& limits) {
  return Value::InPlace<ZSetObject>(ValueType::kZSet, first, limits);
}

namespace {

// The records RDB_TYPE_ZSET_2 and RDB_TYPE_ZSET share: the count, then each member and its
// score, binary (ZSET_2) or as text (version 1, types/serialize.h TextDouble).
Result<Value> LoadZSetRecords(RdbReader& r, const TypeLimits& limits, bool text_scores) {
  uint64_t n;
  Status st = r.Length(&n);
  if (!st.ok()) return st;
  if (n == 0) return Status::Error(std::string(kRdbEmptyKey));
  Value v = Value::InPlace<ZSetObject>(ValueType::kZSet, std::string_view(), TypeLimits{});
  ZSetObject* z = &ZSetOf(v);
  z->ConvertToSkiplist();
  std::string m;
  size_t longest = 0;
  for (uint64_t i = 0; i < n; ++i) {
    double score;
    if (!(st = r.String(&m)).ok()) return st;
    if (!(st = text_scores ? r.TextDouble(&score) : r.BinaryDouble(&score)).ok()) return st;
    if (std::isnan(score)) return Status::Error("Zset with NAN score detected");
    if (z->Add(m, score, limits) != ZSetObject::AddResult::kAdded) {
      return Status::Error("Duplicate zset fields detected");
    }
    if (m.size() > longest) longest = m.size();
  }
  if (z->size() <= limits.zset_max_listpack_entries && longest <= limits.zset_max_listpack_value) {
    z->ConvertToListpack();
  }
  return v;
}

}  // namespace

Result<Value> LoadZSet2(RdbReader& r, const TypeLimits& limits) {
  return LoadZSetRecords(r, limits, /*text_scores=*/false);
}

Result<Value> LoadZSetText(RdbReader& r, const TypeLimits& limits) {
  return LoadZSetRecords(r, limits, /*text_scores=*/true);
}

Result<Value> LoadZSetListpack(RdbReader& r, const TypeLimits& limits) {
  std::string scratch;
  std::string_view blob;
  Status st = r.StringView(&scratch, &blob);
  if (!st.ok()) return st;
  std::optional<Listpack> lp = Listpack::FromBlob(blob);
  if (!lp) return Status::Error("Zset listpack integrity check failed.");
  return ZSetFromLoadedListpack(std::move(*lp), limits);
}

Result<Value> ZSetFromLoadedListpack(Listpack lp, const TypeLimits& limits, const char* encoding) {
  const std::string failed = std::string(encoding) + " integrity check failed.";
  if (lp.Size() % 2 != 0) return Status::Error(failed);
  if (lp.Empty()) return Status::Error(std::string(kRdbEmptyKey));
  // Every score must parse, and no member may repeat.
  for (Listpack::Pos p = lp.First(); p != Listpack::kNone; p = lp.Next(lp.Next(p))) {
    ListpackEntry s = lp.Get(lp.Next(p));
    double d;
    if (!s.is_int && (!ParseDouble(s.str, &d) || std::isnan(d))) {
      return Status::Error("invalid zset score");
    }
  }
  if (lp.HasRepeatedText(2)) return Status::Error(failed);
  Value v = Value::InPlace<ZSetObject>(ValueType::kZSet, std::move(lp));
  ZSetObject* z = &ZSetOf(v);
  if (z->size() > limits.zset_max_listpack_entries) z->ConvertToSkiplist();
  return v;
}

}  // namespace redistp
