#include "types/list.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "types/digest.h"
#include "types/serialize.h"
#include "util/numbers.h"

namespace redistp {
namespace {

constexpr uint64_t kNodePlain = 1;
constexpr uint64_t kNodePacked = 2;

const Quicklist& Ql(const void* obj) { return *static_cast<const Quicklist*>(obj); }

const char* ListEncoding(const void*) { return "quicklist"; }

void ListDestroy(void* obj) { delete static_cast<Quicklist*>(obj); }

void* ListClone(const void* obj) { return new Quicklist(Ql(obj).Clone()); }

size_t ListLength(const void* obj) { return Ql(obj).Size(); }

// Redis sizes a quicklist from its first `samples` nodes (all when 0) and scales by the node
// count.
size_t ListMemory(const void* obj, size_t samples) {
  const Quicklist& ql = Ql(obj);
  if (samples == 0 || samples >= ql.NodeCount()) return sizeof(Quicklist) + ql.AllocatedBytes();
  size_t seen = 0, bytes = 0;
  for (const Quicklist::Node* n = ql.HeadNode(); n != nullptr && seen < samples; n = n->next) {
    bytes += Quicklist::NodeAllocatedBytes(n);  // as stored: a compressed node counts as such
    ++seen;
  }
  return sizeof(Quicklist) + bytes / seen * ql.NodeCount();
}

void ListDigest(const void* obj, ValueDigest& d) {
  const Quicklist& ql = Ql(obj);
  for (Quicklist::Cursor c = ql.First(); c.Valid(); c = ql.Next(c)) {
    ListpackEntry e = ql.Get(c);
    if (e.is_int) {
      char buf[kMaxInt64Chars + 1];
      d.Mix(d.current(), buf, FormatInt64(e.num, buf));
    } else {
      d.Mix(d.current(), e.str);
    }
  }
}

uint8_t ListRdbType(const void*, int) { return kRdbListQuicklist2; }

void ListSerialize(const void* obj, RdbWriter& w) {
  const Quicklist& ql = Ql(obj);
  w.Length(ql.NodeCount());
  for (const Quicklist::Node* n = ql.HeadNode(); n != nullptr; n = n->next) {
    const Listpack& lp = ql.NodeListpack(n);
    if (n->plain()) {
      // A plain node's RDB form is its element itself (an integer-looking one as its text).
      w.Length(kNodePlain);
      w.String(lp.Get(lp.First()).ToString());
    } else {
      w.Length(kNodePacked);
      w.String(lp.Blob());
    }
  }
  ql.Recompress();
}

}  // namespace

const TypeOps kListOps = {
    .type = ValueType::kList,
    .encoding = ListEncoding,
    .destroy = ListDestroy,
    .clone = ListClone,
    .memory = ListMemory,
    .length = ListLength,
    .digest = ListDigest,
    .rdb_type = ListRdbType,
    .serialize = ListSerialize,
};

Value NewListValue(const TypeLimits& limits) {
  return Value::Object(ValueType::kList,
                       new Quicklist(limits.list_max_listpack_size, limits.list_compress_depth));
}

Result<Value> LoadListQuicklist2(RdbReader& r, const TypeLimits& limits) {
  uint64_t nodes;
  Status st = r.Length(&nodes);
  if (!st.ok()) return st;
  Value v = NewListValue(limits);
  Quicklist& ql = ListOf(v);
  std::string scratch;
  for (uint64_t i = 0; i < nodes; ++i) {
    uint64_t container;
    if (!(st = r.Length(&container)).ok()) return st;
    // Redis checks the container before reading the node.
    if (container != kNodePlain && container != kNodePacked) {
      return Status::Error("Quicklist integrity check failed.");
    }
    std::string_view blob;
    if (!(st = r.StringView(&scratch, &blob)).ok()) return st;
    if (blob.empty()) return Status::Error("empty quicklist node");  // Redis refuses one too
    if (container == kNodePlain) {
      ql.AppendPlainNode(blob);  // one element stored whole; it stays plain, as in Redis
      continue;
    }
    std::optional<Listpack> lp = Listpack::FromBlob(blob);
    if (!lp) return Status::Error("Listpack integrity check failed.");
    if (lp->Empty()) continue;  // Redis skips empty nodes when loading
    ql.AppendNode(std::move(*lp));
  }
  if (ql.Size() == 0) return Status::Error(std::string(kRdbEmptyKey));
  return v;
}

Result<Value> LoadListPlain(RdbReader& r, const TypeLimits& limits) {
  uint64_t n;
  Status st = r.Length(&n);
  if (!st.ok()) return st;
  if (n == 0) return Status::Error(std::string(kRdbEmptyKey));
  Value v = NewListValue(limits);
  Quicklist& ql = ListOf(v);
  std::string s;
  for (uint64_t i = 0; i < n; ++i) {
    if (!(st = r.String(&s)).ok()) return st;
    ql.PushBack(s, limits.list_packed_threshold);
  }
  return v;
}

}  // namespace redistp
