// Hashes with field expire times in RDB form (see hash_rdb.h for the layouts).
#include "types/hash_rdb.h"

#include <limits>
#include <optional>
#include <string>

#include "types/hash.h"
#include "types/listpack.h"
#include "types/serialize.h"
#include "util/numbers.h"

namespace redistp {
namespace {

const Status kBadExpire = Status::Error("invalid hash field expire time");

Status ReadLittle64(RdbReader& r, uint64_t* v) {
  std::string_view raw;
  Status st = r.Raw(8, &raw);
  if (!st.ok()) return st;
  *v = 0;
  for (int i = 7; i >= 0; --i) *v = (*v << 8) | static_cast<unsigned char>(raw[i]);
  return Status::Ok();
}

void WriteLittle64(RdbWriter& w, uint64_t v) {
  for (int shift = 0; shift < 64; shift += 8) w.Byte(static_cast<uint8_t>(v >> shift));
}

// Adds one loaded field; a repeated field or an out-of-range time is an error.
Status AddField(HashObject& h, std::string_view f, std::string_view v, uint64_t expire_ms,
                const TypeLimits& limits) {
  if (expire_ms > static_cast<uint64_t>(kMaxFieldExpireMs)) return kBadExpire;
  if (!h.AddWithExpire(f, v, static_cast<int64_t>(expire_ms), limits)) {
    return Status::Error("Hash with dup elements");
  }
  return Status::Ok();
}

// 24 (`relative`: ttls count from the min expire read first) and 22 (absolute ttls).
Result<Value> LoadMetadata(RdbReader& r, const TypeLimits& limits, bool relative) {
  uint64_t min_expire = 0;
  Status st;
  if (relative && !(st = ReadLittle64(r, &min_expire)).ok()) return st;
  if (min_expire > static_cast<uint64_t>(kMaxFieldExpireMs)) return kBadExpire;
  uint64_t n;
  if (!(st = r.Length(&n)).ok()) return st;
  if (n == 0) return Status::Error(std::string(kRdbEmptyKey));
  Value v = NewHashValue();
  HashObject& h = HashOf(v);
  if (n > limits.hash_max_listpack_entries) h.ConvertToHashtable();
  std::string f, val;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t ttl;
    if (!(st = r.Length(&ttl)).ok() || !(st = r.String(&f)).ok() || !(st = r.String(&val)).ok()) {
      return st;
    }
    uint64_t expire = ttl;
    if (relative && ttl != 0) {
      if (ttl - 1 > static_cast<uint64_t>(kMaxFieldExpireMs) - min_expire) return kBadExpire;
      expire = min_expire + (ttl - 1);
    }
    if (!(st = AddField(h, f, val, expire, limits)).ok()) return st;
  }
  return v;
}

// 25 (`with_min`: the min expire comes first) and 23.
Result<Value> LoadListpackEx(RdbReader& r, const TypeLimits& limits, bool with_min) {
  uint64_t min_expire = 0;
  Status st;
  if (with_min && !(st = ReadLittle64(r, &min_expire)).ok()) return st;
  std::string scratch;
  std::string_view blob;
  if (!(st = r.StringView(&scratch, &blob)).ok()) return st;
  const Status failed = Status::Error("Hash listpack integrity check failed.");
  std::optional<Listpack> lp = Listpack::FromBlob(blob);
  if (!lp || lp->Size() % 3 != 0) return failed;
  if (lp->Empty()) return Status::Error(std::string(kRdbEmptyKey));
  Value v = NewHashValue();
  HashObject& h = HashOf(v);
  if (lp->Size() / 3 > limits.hash_max_listpack_entries) h.ConvertToHashtable();
  for (Listpack::Pos p = lp->First(); p != Listpack::kNone;) {
    const std::string f = lp->Get(p).ToString();
    p = lp->Next(p);
    const std::string val = lp->Get(p).ToString();
    p = lp->Next(p);
    const ListpackEntry t = lp->Get(p);
    p = lp->Next(p);
    int64_t expire = t.num;
    if (!t.is_int && !ParseInt64(t.str, &expire)) return failed;
    if (expire < 0) return kBadExpire;
    if (!(st = AddField(h, f, val, static_cast<uint64_t>(expire), limits)).ok()) return st;
  }
  return v;
}

}  // namespace

bool CarriesFieldExpires(const Value& v) {
  return v.type() == ValueType::kHash && HashOf(v).HasFieldExpires();
}

void SerializeHashMetadata(const HashObject& h, RdbWriter& w) {
  const int64_t min_expire = h.MinFieldExpire();
  WriteLittle64(w, static_cast<uint64_t>(min_expire));
  w.Length(h.size());
  h.ForEachWithExpire([&](std::string_view f, std::string_view v, int64_t expire_ms) {
    w.Length(expire_ms == 0 ? 0 : static_cast<uint64_t>(expire_ms - min_expire) + 1);
    w.String(f);
    w.String(v);
  });
}

Result<Value> LoadHashMetadata(RdbReader& r, const TypeLimits& limits) {
  return LoadMetadata(r, limits, true);
}

Result<Value> LoadHashMetadataPreGa(RdbReader& r, const TypeLimits& limits) {
  return LoadMetadata(r, limits, false);
}

Result<Value> LoadHashListpackEx(RdbReader& r, const TypeLimits& limits) {
  return LoadListpackEx(r, limits, true);
}

Result<Value> LoadHashListpackExPreGa(RdbReader& r, const TypeLimits& limits) {
  return LoadListpackEx(r, limits, false);
}

size_t DropExpiredFields(Value& v, int64_t now_ms) {
  if (!CarriesFieldExpires(v)) return 0;
  HashObject& h = HashOf(v);
  if (h.MinFieldExpire() > now_ms) return 0;
  const std::vector<std::string> due = h.DueFields(now_ms, std::numeric_limits<size_t>::max());
  for (const std::string& f : due) h.Delete(f);
  return due.size();
}

}  // namespace redistp
