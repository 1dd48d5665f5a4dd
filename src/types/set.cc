#include "types/set.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <utility>

#include "types/digest.h"
#include "types/fair_random.h"
#include "types/listpack.h"
#include "types/serialize.h"
#include "util/hash.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// The integer an intset may hold for `s`: canonical decimal text of a 64-bit integer only
// ("007" and "+1" stay strings, as in Redis).
bool AsSetInteger(std::string_view s, int64_t* v) {
  return s.size() <= kMaxInt64Chars && ParseInt64(s, v);
}
bool IsSetInteger(std::string_view s) {
  int64_t v;
  return AsSetInteger(s, &v);
}

const SetObject& Obj(const void* p) { return *static_cast<const SetObject*>(p); }

const char* SetEncoding(const void* p) {
  return Obj(p).encoding() == SetObject::Encoding::kIntset ? "intset" : "hashtable";
}
void SetDestroy(void* p) { delete static_cast<SetObject*>(p); }
void* SetClone(const void* p) { return Obj(p).Clone(); }
size_t SetMemory(const void* p, size_t samples) { return Obj(p).MemoryBytes(samples); }
size_t SetLength(const void* p) { return Obj(p).size(); }

// Members are unordered: each is folded in with Xor, so the digest does not depend on order.
void SetDigest(const void* p, ValueDigest& d) {
  Obj(p).ForEach([&d](std::string_view m) { d.Xor(d.current(), m.data(), m.size()); });
}

// Redis 7.2 keeps a small set of strings as a listpack (set-max-listpack-entries 128 and
// set-max-listpack-value 64 by default) and writes it as RDB_TYPE_SET_LISTPACK; we have no such
// encoding, so an RDB 11+ image writes as a listpack the sets 7.2's defaults would hold in one.
constexpr size_t kListpackSetEntries = 128;
constexpr size_t kListpackSetValue = 64;

bool WrittenAsListpack(const SetObject& s, int rdb_version) {
  if (rdb_version < kRdbVersion72 || s.encoding() == SetObject::Encoding::kIntset ||
      s.size() > kListpackSetEntries) {
    return false;
  }
  bool small = true;
  s.ForEach([&small](std::string_view m) { small = small && m.size() <= kListpackSetValue; });
  return small;
}

uint8_t SetRdbType(const void* p, int rdb_version) {
  const SetObject& s = Obj(p);
  if (s.encoding() == SetObject::Encoding::kIntset) return kRdbSetIntset;
  return WrittenAsListpack(s, rdb_version) ? kRdbSetListpack : kRdbSet;
}

void SetSerialize(const void* p, RdbWriter& w) {
  const SetObject& s = Obj(p);
  if (s.encoding() == SetObject::Encoding::kIntset) {
    w.String(s.intset().Blob());
    return;
  }
  if (WrittenAsListpack(s, w.version())) {
    Listpack lp;
    s.ForEach([&lp](std::string_view m) { lp.Append(m); });
    w.String(lp.Blob());
    return;
  }
  w.Length(s.size());
  s.ForEach([&w](std::string_view m) { w.String(m); });
}

}  // namespace

const TypeOps kSetOps = {
    .type = ValueType::kSet,
    .encoding = SetEncoding,
    .destroy = SetDestroy,
    .clone = SetClone,
    .memory = SetMemory,
    .length = SetLength,
    .digest = SetDigest,
    .rdb_type = SetRdbType,
    .serialize = SetSerialize,
    .adopt = AdoptInPlace<SetObject>,
    .destruct = DestructInPlace<SetObject>,
};

SetObject::SetObject(std::string_view first)
    : rep_(IsSetInteger(first) ? nullptr : std::make_unique<HashTable<MemberTableTraits>>()) {}

size_t SetObject::size() const { return !rep_.is_large() ? is().Size() : large()->size(); }

bool SetObject::Contains(std::string_view member) {
  if (!rep_.is_large()) {
    int64_t v;
    return AsSetInteger(member, &v) && is().Contains(v);
  }
  return large()->Find(member) != nullptr;
}

bool SetObject::Add(std::string_view member, const TypeLimits& limits) {
  if (!rep_.is_large()) {
    int64_t v;
    if (AsSetInteger(member, &v)) {
      if (!is().Add(v)) return false;
      if (is().Size() > limits.set_max_intset_entries) ConvertToHashtable();
      return true;
    }
    ConvertToHashtable();
  }
  if (large()->Find(member) != nullptr) return false;
  large()->Insert(MemberNode::Create(member));
  return true;
}

bool SetObject::Remove(std::string_view member) {
  if (!rep_.is_large()) {
    int64_t v;
    return AsSetInteger(member, &v) && is().Remove(v);
  }
  MemberNode* n = large()->Unlink(member);
  if (n == nullptr) return false;
  MemberNode::Destroy(n);
  // As Redis after a removal: a table left sparse starts an (incremental) shrink, so random
  // picks keep finding non-empty buckets quickly.
  large()->MaybeShrink();
  return true;
}

void SetObject::Clear() {
  if (rep_.is_large()) {
    large()->Clear();
  } else {
    is() = Intset();
  }
}

// A hashtable member is drawn uniformly whatever the chain lengths (types/fair_random.h: the
// same draw as HRANDFIELD's and ZRANDMEMBER's), which also moves a rehash under way one step.
SetObject::MemberRef SetObject::RandomMember() {
  if (!rep_.is_large()) return {is().Random(RandomWord()), nullptr};
  return {0, FairRandomNode(*large())};
}

void SetObject::PickDistinct(size_t count, std::vector<MemberRef>* out) {
  out->clear();
  const size_t n = size();
  if (count > n) count = n;
  out->reserve(count);
  if (count * 3 > n) {
    // Dense: every member in a vector, then the first `count` slots of a Fisher-Yates shuffle.
    std::vector<MemberRef> all;
    all.reserve(n);
    if (!rep_.is_large()) {
      for (size_t i = 0; i < n; ++i) all.push_back({is().At(i), nullptr});
    } else {
      large()->ForEach([&all](const MemberNode* node) { all.push_back({0, node}); });
    }
    for (size_t i = 0; i < count; ++i) {
      std::swap(all[i], all[i + RandomWord() % (n - i)]);
      out->push_back(all[i]);
    }
    return;
  }
  // Sparse: at most one in three members is wanted, so a random pick is new with probability
  // at least 2/3 and the expected number of picks is under 1.5 * count.
  if (!rep_.is_large()) {
    std::unordered_set<int64_t> seen;
    seen.reserve(count);
    while (out->size() < count) {
      MemberRef r = RandomMember();
      if (seen.insert(r.value).second) out->push_back(r);
    }
    return;
  }
  std::unordered_set<const MemberNode*> seen;
  seen.reserve(count);
  while (out->size() < count) {
    MemberRef r = RandomMember();
    if (seen.insert(r.node).second) out->push_back(r);
  }
}

void SetObject::RemoveRef(const MemberRef& r) {
  if (r.node == nullptr) {
    is().Remove(r.value);
    return;
  }
  MemberNode* n = large()->Unlink(r.node->member());
  MemberNode::Destroy(n);
  large()->MaybeShrink();
}

void SetObject::ConvertToHashtable() {
  if (rep_.is_large()) return;
  auto table = std::make_unique<HashTable<MemberTableTraits>>();
  char buf[kMaxInt64Chars + 1];
  for (size_t i = 0; i < is().Size(); ++i) {
    table->Insert(MemberNode::Create(std::string_view(buf, FormatInt64(is().At(i), buf))));
  }
  rep_.SetLarge(std::move(table));
}

SetObject* SetObject::Clone() const {
  auto* c = new SetObject();
  if (!rep_.is_large()) {
    c->rep_.SetPacked(is().Clone());
  } else {
    c->rep_.SetLarge(std::make_unique<HashTable<MemberTableTraits>>());
    large()->ForEach(
        [c](const MemberNode* n) { c->large()->Insert(MemberNode::Create(n->member())); });
  }
  return c;
}

// As Redis's MEMORY USAGE: the table's buckets plus the average of the first `samples` nodes
// times the member count (every node when samples is 0).
size_t SetObject::MemoryBytes(size_t samples) const {
  // The object itself lives in its key's Value.
  if (!rep_.is_large()) return is().AllocatedBytes();
  size_t bytes = large()->BucketBytes();
  size_t seen = 0, node_bytes = 0;
  large()->ForEach([&](const MemberNode* n) {
    if (samples != 0 && seen >= samples) return;
    node_bytes += n->AllocSize();
    ++seen;
  });
  return seen == 0 ? bytes : bytes + node_bytes / seen * large()->size();
}

Value NewSetValue(std::string_view first) {
  return Value::InPlace<SetObject>(ValueType::kSet, first);
}

Value NewIntsetSetValue() { return Value::InPlace<SetObject>(ValueType::kSet, Intset()); }

Result<Value> LoadSetPlain(RdbReader& r, const TypeLimits& limits) {
  uint64_t n;
  Status st = r.Length(&n);
  if (!st.ok()) return st;
  if (n == 0) return Status::Error(std::string(kRdbEmptyKey));
  std::string m;
  Value v;
  for (uint64_t i = 0; i < n; ++i) {
    if (!(st = r.String(&m)).ok()) return st;
    if (i == 0) {
      v = NewSetValue(m);
      // A set too large for an intset is built as a hashtable from the start, as Redis does.
      if (n > limits.set_max_intset_entries) SetOf(v).ConvertToHashtable();
    }
    if (!SetOf(v).Add(m, limits)) return Status::Error("Duplicate set members detected");
  }
  return v;
}

// RDB_TYPE_SET_LISTPACK (7.2): the members as one listpack, each once. The set is built in our
// own encodings (an intset when every member is an integer and they are few enough).
Result<Value> LoadSetListpack(RdbReader& r, const TypeLimits& limits) {
  std::string scratch;
  std::string_view blob;
  Status st = r.StringView(&scratch, &blob);
  if (!st.ok()) return st;
  std::optional<Listpack> lp = Listpack::FromBlob(blob);
  if (!lp) return Status::Error("Set listpack integrity check failed.");
  if (lp->Empty()) return Status::Error(std::string(kRdbEmptyKey));
  Value v;
  const size_t n = lp->Size();
  for (Listpack::Pos p = lp->First(); p != Listpack::kNone; p = lp->Next(p)) {
    const std::string m = lp->Get(p).ToString();
    if (p == lp->First()) {
      v = NewSetValue(m);
      if (n > limits.set_max_intset_entries) SetOf(v).ConvertToHashtable();
    }
    if (!SetOf(v).Add(m, limits)) return Status::Error("Duplicate set members detected");
  }
  return v;
}

Result<Value> LoadSetIntset(RdbReader& r, const TypeLimits& limits) {
  std::string scratch;
  std::string_view blob;
  Status st = r.StringView(&scratch, &blob);
  if (!st.ok()) return st;
  std::optional<Intset> is = Intset::FromBlob(blob);
  if (!is) return Status::Error("Intset integrity check failed.");
  if (is->Size() == 0) return Status::Error(std::string(kRdbEmptyKey));
  Value v = Value::InPlace<SetObject>(ValueType::kSet, std::move(*is));
  if (SetOf(v).size() > limits.set_max_intset_entries) SetOf(v).ConvertToHashtable();
  return v;
}

}  // namespace redistp
