#include "types/hash.h"

#include <string>

#include "types/digest.h"
#include "types/hash_rdb.h"
#include "types/serialize.h"

namespace redistp {
namespace {

const HashObject& Obj(const void* p) { return *static_cast<const HashObject*>(p); }

const char* HashEncoding(const void* p) {
  return Obj(p).encoding() == HashObject::Encoding::kListpack ? "listpack" : "hashtable";
}
void HashDestroy(void* p) { delete static_cast<HashObject*>(p); }
void* HashClone(const void* p) { return Obj(p).Clone(); }
size_t HashMemory(const void* p, size_t samples) { return Obj(p).MemoryBytes(samples); }
size_t HashLength(const void* p) { return Obj(p).size(); }

// Each field/value pair is digested on its own (field mixed, then value), and the pairs are
// combined with Xor so their order does not matter.
void HashDigest(const void* p, ValueDigest& d) {
  Obj(p).ForEach([&d](std::string_view f, std::string_view v) {
    ValueDigest::Bytes pair = {};
    d.Mix(pair, f);
    d.Mix(pair, v);
    d.Xor(d.current(), pair, sizeof(pair));
  });
}

// A hash with field expire times is RDB_TYPE_HASH_METADATA from RDB 12 on (types/hash_rdb.h);
// below 12 it is written as a plain hash, its fields without their times.
uint8_t HashRdbType(const void* p, int rdb_version) {
  const HashObject& h = Obj(p);
  if (rdb_version >= kRdbVersion74 && h.HasFieldExpires()) return kRdbHashMetadata;
  return h.encoding() == HashObject::Encoding::kListpack ? kRdbHashListpack : kRdbHash;
}

void HashSerialize(const void* p, RdbWriter& w) {
  const HashObject& h = Obj(p);
  if (w.version() >= kRdbVersion74 && h.HasFieldExpires()) {
    SerializeHashMetadata(h, w);
    return;
  }
  if (h.encoding() == HashObject::Encoding::kListpack) {
    w.String(h.listpack().Blob());
    return;
  }
  w.Length(h.size());
  h.ForEach([&w](std::string_view f, std::string_view v) {
    w.String(f);
    w.String(v);
  });
}

bool FitsListpack(std::string_view f, std::string_view v, const TypeLimits& limits) {
  return f.size() <= limits.hash_max_listpack_value && v.size() <= limits.hash_max_listpack_value;
}

}  // namespace

const TypeOps kHashOps = {
    .type = ValueType::kHash,
    .encoding = HashEncoding,
    .destroy = HashDestroy,
    .clone = HashClone,
    .memory = HashMemory,
    .length = HashLength,
    .digest = HashDigest,
    .rdb_type = HashRdbType,
    .serialize = HashSerialize,
    .adopt = AdoptInPlace<HashObject>,
    .destruct = DestructInPlace<HashObject>,
};

size_t HashObject::size() const {
  return !rep_.is_large() ? lp().Size() / 2 : large()->fields.size();
}

bool HashObject::Get(std::string_view field, std::string* out) {
  if (rep_.is_large()) {
    FieldNode* n = large()->fields.Find(field);
    if (n == nullptr) return false;
    out->assign(n->value());
    return true;
  }
  Listpack::Pos p = lp().Find(lp().First(), field, 1);
  if (p == Listpack::kNone) return false;
  *out = lp().Get(lp().Next(p)).ToString();
  return true;
}

bool HashObject::GetView(std::string_view field, char* scratch, std::string_view* out) {
  if (rep_.is_large()) {
    FieldNode* n = large()->fields.Find(field);
    if (n == nullptr) return false;
    *out = n->value();
    return true;
  }
  Listpack::Pos p = lp().Find(lp().First(), field, 1);
  if (p == Listpack::kNone) return false;
  *out = EntryText(lp().Get(lp().Next(p)), scratch);
  return true;
}

void HashObject::PrepareWrite(size_t longest, size_t total, const TypeLimits& limits) {
  if (rep_.is_large()) return;
  if (longest > limits.hash_max_listpack_value || !lp().SafeToAdd(total)) ConvertToHashtable();
}

std::vector<Listpack::Pos> HashObject::FieldPositions() const {
  std::vector<Listpack::Pos> pos;
  pos.reserve(size());
  for (Listpack::Pos p = lp().First(); p != Listpack::kNone; p = lp().Next(lp().Next(p))) {
    pos.push_back(p);
  }
  return pos;
}

bool HashObject::Exists(std::string_view field) {
  if (rep_.is_large()) return large()->fields.Find(field) != nullptr;
  return lp().Find(lp().First(), field, 1) != Listpack::kNone;
}

bool HashObject::Set(std::string_view field, std::string_view value, const TypeLimits& limits,
                     bool keep_ttl) {
  if (!rep_.is_large() && !FitsListpack(field, value, limits)) {
    ConvertToHashtable();
  }
  if (!rep_.is_large()) {
    Listpack::Pos p = lp().Find(lp().First(), field, 1);
    const bool added = p == Listpack::kNone;
    if (added) {
      lp().Append(field);
      lp().Append(value);
    } else {
      lp().Replace(lp().Next(p), value);
    }
    // Checked after an update too, as Redis does: a hash left over the limit by a lowered
    // hash-max-listpack-entries converts at its next write.
    if (size() > limits.hash_max_listpack_entries) ConvertToHashtable();
    return added;
  }
  FieldNode* old = large()->fields.Find(field);
  if (old != nullptr && old->value_len == value.size()) {
    old->SetValue(value);
    if (!keep_ttl && large()->expires != nullptr) ClearExpire(old);
    return false;
  }
  const bool existed = old != nullptr;
  int64_t kept = 0;
  if (existed) {
    const int64_t had = large()->expires != nullptr ? ClearExpire(old) : 0;
    if (keep_ttl) kept = had;
    FieldNode::Destroy(large()->fields.Unlink(field));
  }
  FieldNode* n = FieldNode::Create(field, value);
  large()->fields.Insert(n);
  if (kept != 0) Expires().Set(n, kept);
  return !existed;
}

bool HashObject::Delete(std::string_view field) {
  if (rep_.is_large()) {
    FieldNode* n = large()->fields.Unlink(field);
    if (n == nullptr) return false;
    if (large()->expires != nullptr) ClearExpire(n);
    FieldNode::Destroy(n);
    // As Redis after a removal: a table left sparse starts an (incremental) shrink, so random
    // picks (HRANDFIELD) keep finding non-empty buckets quickly.
    large()->fields.MaybeShrink();
    return true;
  }
  Listpack::Pos p = lp().Find(lp().First(), field, 1);
  if (p == Listpack::kNone) return false;
  lp().Delete(lp().Delete(p));
  return true;
}

void HashObject::ConvertToHashtable() {
  // The expire index pointer rides in the table header's jemalloc class (72 -> 80 bytes), and
  // a hash stays one word: a hash without field times costs what it did before them.
  static_assert(sizeof(Large) <= 80 && sizeof(HashObject) == 8);
  if (rep_.is_large()) return;
  auto table = std::make_unique<Large>();
  ForEach([&table](std::string_view f, std::string_view v) {
    table->fields.Insert(FieldNode::Create(f, v));
  });
  rep_.SetLarge(std::move(table));
}

HashObject* HashObject::Clone() const {
  auto* c = new HashObject();
  if (!rep_.is_large()) {
    c->rep_.SetPacked(lp().Clone());
  } else {
    c->rep_.SetLarge(std::make_unique<Large>());
    const FieldExpires* ex = large()->expires.get();
    large()->fields.ForEach([c, ex](const FieldNode* n) {
      FieldNode* copy = FieldNode::Create(n->field(), n->value());
      c->large()->fields.Insert(copy);
      const int64_t when = ex != nullptr ? ex->Get(n) : 0;
      if (when != 0) c->Expires().Set(copy, when);
    });
  }
  return c;
}

size_t HashObject::MemoryBytes(size_t samples) const {
  // The object itself lives in its key's Value.
  if (!rep_.is_large()) return lp().AllocatedBytes();
  size_t bytes = large()->fields.BucketBytes();
  if (large()->expires != nullptr) bytes += large()->expires->MemoryBytes();
  size_t seen = 0, node_bytes = 0;
  large()->fields.ForEach([&](const FieldNode* n) {
    if (samples != 0 && seen >= samples) return;
    node_bytes += n->AllocSize();
    ++seen;
  });
  return seen == 0 ? bytes : bytes + node_bytes / seen * large()->fields.size();
}

int64_t HashObject::ClearExpire(const FieldNode* n) {
  const int64_t when = large()->expires->Clear(n);
  if (large()->expires->empty()) large()->expires.reset();
  return when;
}

bool HashObject::FieldExpire(std::string_view field, int64_t* when_ms) {
  if (!rep_.is_large()) {
    *when_ms = 0;
    return Exists(field);
  }
  const FieldNode* n = large()->fields.Find(field);
  if (n == nullptr) return false;
  *when_ms = large()->expires != nullptr ? large()->expires->Get(n) : 0;
  return true;
}

bool HashObject::SetFieldExpire(std::string_view field, int64_t when_ms) {
  if (!rep_.is_large()) {
    if (!Exists(field)) return false;
    ConvertToHashtable();
  }
  const FieldNode* n = large()->fields.Find(field);
  if (n == nullptr) return false;
  Expires().Set(n, when_ms);
  return true;
}

bool HashObject::PersistField(std::string_view field) {
  if (!HasFieldExpires()) return false;
  const FieldNode* n = large()->fields.Find(field);
  return n != nullptr && ClearExpire(n) != 0;
}

std::vector<std::string> HashObject::DueFields(int64_t now_ms, size_t max) const {
  std::vector<std::string> due;
  if (!HasFieldExpires()) return due;
  large()->expires->ForEachByTime([&](const FieldNode* n, int64_t when) {
    if (when > now_ms || due.size() >= max) return false;
    due.emplace_back(n->field());
    return true;
  });
  return due;
}

bool HashObject::AddWithExpire(std::string_view field, std::string_view value, int64_t expire_ms,
                               const TypeLimits& limits) {
  if (Exists(field)) return false;
  Set(field, value, limits);
  if (expire_ms != 0) SetFieldExpire(field, expire_ms);
  return true;
}

Value NewHashValue() { return Value::InPlace<HashObject>(ValueType::kHash); }

Result<Value> LoadHashPlain(RdbReader& r, const TypeLimits& limits) {
  uint64_t n;
  Status st = r.Length(&n);
  if (!st.ok()) return st;
  if (n == 0) return Status::Error(std::string(kRdbEmptyKey));
  Value v = NewHashValue();
  HashObject& h = HashOf(v);
  if (n > limits.hash_max_listpack_entries) h.ConvertToHashtable();
  std::string f, val;
  for (uint64_t i = 0; i < n; ++i) {
    if (!(st = r.String(&f)).ok() || !(st = r.String(&val)).ok()) return st;
    if (!h.Set(f, val, limits)) return Status::Error("Hash with dup elements");
  }
  return v;
}

Result<Value> LoadHashListpack(RdbReader& r, const TypeLimits& limits) {
  std::string scratch;
  std::string_view blob;
  Status st = r.StringView(&scratch, &blob);
  if (!st.ok()) return st;
  std::optional<Listpack> lp = Listpack::FromBlob(blob);
  if (!lp) return Status::Error("Hash listpack integrity check failed.");
  return HashFromLoadedListpack(std::move(*lp), limits, /*check_lengths=*/false);
}

Result<Value> HashFromLoadedListpack(Listpack lp, const TypeLimits& limits, bool check_lengths,
                                     const char* encoding) {
  const std::string failed = std::string(encoding) + " integrity check failed.";
  if (lp.Size() % 2 != 0) return Status::Error(failed);
  if (lp.Empty()) return Status::Error(std::string(kRdbEmptyKey));
  if (lp.HasRepeatedText(2)) return Status::Error(failed);
  Value v = Value::InPlace<HashObject>(ValueType::kHash, std::move(lp));
  HashObject* obj = &HashOf(v);  // held in v: taken after v is made
  bool over = obj->size() > limits.hash_max_listpack_entries;
  if (check_lengths && !over) {
    obj->ForEach([&](std::string_view f, std::string_view val) {
      if (!FitsListpack(f, val, limits)) over = true;
    });
  }
  if (over) obj->ConvertToHashtable();
  return v;
}

}  // namespace redistp
