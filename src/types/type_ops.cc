#include "types/type_ops.h"

#include <string>

#include "types/hash.h"
#include "types/hash_rdb.h"
#include "types/list.h"
#include "types/rdb_legacy.h"
#include "types/serialize.h"
#include "types/set.h"
#include "types/stream.h"
#include "types/zset.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// One row per aggregate type, indexed by ValueType. A family adds its row here when its type
// lands (src/types/<type>.h exports `extern const TypeOps kListOps` and so on).
const TypeOps* const kRows[] = {
    nullptr,  // kString: not an aggregate; Value implements strings itself
    &kListOps, &kSetOps, &kZSetOps, &kHashOps, &kStreamOps,
};

// RDB readers of aggregate encodings, one row per RDB type byte, added with their types.
const RdbLoader kLoaders[] = {
    {kRdbListQuicklist2, LoadListQuicklist2},
    {kRdbList, LoadListPlain},
    {kRdbSet, LoadSetPlain},
    {kRdbSetIntset, LoadSetIntset},
    {kRdbHash, LoadHashPlain},
    {kRdbHashListpack, LoadHashListpack},
    {kRdbZSet2, LoadZSet2},
    {kRdbZSetListpack, LoadZSetListpack},
    {kRdbStreamListpacks2, LoadStreamListpacks2},
    {kRdbStreamListpacks, LoadStreamListpacks},
    // Redis 7.2's (RDB 11).
    {kRdbSetListpack, LoadSetListpack},
    {kRdbStreamListpacks3, LoadStreamListpacks3},
    // Redis 7.4's (RDB 12): hashes with field expire times (types/hash_rdb.h).
    {kRdbHashMetadata, LoadHashMetadata},
    {kRdbHashListpackEx, LoadHashListpackEx},
    {kRdbHashMetadataPreGa, LoadHashMetadataPreGa},
    {kRdbHashListpackExPreGa, LoadHashListpackExPreGa},
    // Encodings Redis 7.0 still loads but no longer writes (types/rdb_legacy.h).
    {kRdbListZiplist, LoadListZiplist},
    {kRdbListQuicklist, LoadListQuicklist},
    {kRdbHashZipmap, LoadHashZipmap},
    {kRdbHashZiplist, LoadHashZiplist},
    {kRdbZSetZiplist, LoadZSetZiplist},
    {kRdbZSet, LoadZSetText},
};

Result<Value> LoadString(RdbReader& r) {
  std::string s;
  Status st = r.String(&s);
  if (!st.ok()) return st;
  return Value::String(s);
}

}  // namespace

const TypeOps* FindTypeOps(ValueType t) {
  size_t i = static_cast<size_t>(t);
  return i < sizeof(kRows) / sizeof(kRows[0]) ? kRows[i] : nullptr;
}

uint8_t RdbTypeOf(const Value& v, int rdb_version) {
  if (v.is_string()) return kRdbString;
  const TypeOps* ops = FindTypeOps(v.type());
  return ops->rdb_type(v.object(), rdb_version);
}

void SerializeValue(const Value& v, RdbWriter& w) {
  w.Byte(RdbTypeOf(v, w.version()));
  SerializePayload(v, w);
}

void SerializePayload(const Value& v, RdbWriter& w) {
  if (v.is_string()) {
    int64_t n;
    if (v.is_int() && v.GetInt(&n)) {
      w.Integer(n);
    } else {
      char scratch[kMaxInt64Chars + 1];
      w.String(v.View(scratch));
    }
    return;
  }
  const TypeOps* ops = FindTypeOps(v.type());
  ops->serialize(v.object(), w);
}

Result<Value> DeserializeValue(uint8_t rdb_type, RdbReader& r, const TypeLimits& limits) {
  if (rdb_type == kRdbString) return LoadString(r);
  for (const RdbLoader& l : kLoaders) {
    if (l.rdb_type == rdb_type) return l.load(r, limits);
  }
  return Status::Error("unsupported RDB object type " + std::to_string(rdb_type));
}

}  // namespace redistp
