// HashObject: the value of a hash key, and its TypeOps row.
//
// Redis 7.0 keeps a hash in one of two encodings:
//   listpack   at most hash-max-listpack-entries fields, and no field or value longer than
//              hash-max-listpack-value bytes: field, value, field, value ... in one listpack
//              (types/listpack.h), in insertion order;
//   hashtable  otherwise: a hash table of field nodes (util/hash_table.h, types/member_nodes.h).
// A new hash starts as a listpack; it converts for good once a write passes either limit.
// OBJECT ENCODING answers "listpack" or "hashtable".
//
// RDB: a listpack hash is RDB_TYPE_HASH_LISTPACK (the blob, byte-compatible with Redis's), a
// hashtable hash RDB_TYPE_HASH (the count, then field and value of each). Loading validates the
// blob (an even number of entries, no duplicate field) and converts a hash over the limits.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "types/listpack.h"
#include "types/member_nodes.h"
#include "types/type_limits.h"
#include "types/type_ops.h"
#include "types/value.h"
#include "util/hash_table.h"
#include "util/numbers.h"

namespace redistp {

class HashObject {
 public:
  enum class Encoding : uint8_t { kListpack, kHashtable };

  HashObject() = default;
  HashObject(const HashObject&) = delete;
  HashObject& operator=(const HashObject&) = delete;

  Encoding encoding() const { return encoding_; }
  size_t size() const;
  // The value of `field` into *out; false if the field does not exist.
  bool Get(std::string_view field, std::string* out);
  bool Exists(std::string_view field);
  // Sets field to value; true if the field is new. Converts to a hashtable when the hash
  // passes a limit.
  bool Set(std::string_view field, std::string_view value, const TypeLimits& limits);
  bool Delete(std::string_view field);
  // Calls fn(field, value) for every field: listpack order, or no particular order. The hash
  // must not change during the walk.
  template <typename Fn>
  void ForEach(Fn&& fn) const;

  HashObject* Clone() const;
  size_t MemoryBytes(size_t samples) const;
  void ConvertToHashtable();
  // A hash holding the validated listpack `lp` (RDB loading).
  static HashObject* FromListpack(Listpack lp);

  const Listpack& listpack() const { return lp_; }
  // The hashtable encoding's table (HSCAN walks it with HashTable::Scan).
  HashTable<FieldTableTraits>& table() { return table_; }

 private:
  Encoding encoding_ = Encoding::kListpack;
  Listpack lp_;
  HashTable<FieldTableTraits> table_;
};

template <typename Fn>
void HashObject::ForEach(Fn&& fn) const {
  if (encoding_ == Encoding::kHashtable) {
    table_.ForEach([&fn](const FieldNode* n) { fn(n->field(), n->value()); });
    return;
  }
  char fbuf[kMaxInt64Chars + 1], vbuf[kMaxInt64Chars + 1];
  for (Listpack::Pos p = lp_.First(); p != Listpack::kNone; p = lp_.Next(lp_.Next(p))) {
    ListpackEntry f = lp_.Get(p);
    ListpackEntry v = lp_.Get(lp_.Next(p));
    std::string_view fs = f.is_int ? std::string_view(fbuf, FormatInt64(f.num, fbuf)) : f.str;
    std::string_view vs = v.is_int ? std::string_view(vbuf, FormatInt64(v.num, vbuf)) : v.str;
    fn(fs, vs);
  }
}

extern const TypeOps kHashOps;

inline HashObject& HashOf(Value& v) { return *static_cast<HashObject*>(v.object()); }
inline const HashObject& HashOf(const Value& v) {
  return *static_cast<const HashObject*>(v.object());
}
Value NewHashValue();

Result<Value> LoadHashPlain(RdbReader& r, const TypeLimits& limits);
Result<Value> LoadHashListpack(RdbReader& r, const TypeLimits& limits);

}  // namespace redistp
