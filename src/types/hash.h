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
// Random fields (HRANDFIELD). A listpack hash picks a uniform index into its fields; a hashtable
// hash uses FairRandomNode (types/fair_random.h), which gives every field the same chance
// whatever the length of its bucket chain. RandomPairs repeats fields (a negative count),
// DistinctRandomPairs never does (a positive count smaller than the hash).
//
// Field expire times (Redis 7.4's HEXPIRE family): a hashtable hash may carry an absolute unix
// ms expire time per field, kept in a FieldExpires index beside its table (types/
// hash_field_expire.h); setting the first one converts a listpack hash. This class only stores
// them: which fields are past due, and deleting them, is the commands' and the Database's job
// (lazy and active expiry), so every accessor here sees expired-but-present fields as present.
// Set() clears a replaced field's time unless asked to keep it (HSET clears, HINCRBY keeps, as
// in 7.4); Delete() drops it with the field.
//
// RDB: a listpack hash is RDB_TYPE_HASH_LISTPACK (the blob, byte-compatible with Redis's), a
// hashtable hash RDB_TYPE_HASH (the count, then field and value of each). Loading validates the
// blob (an even number of entries, no duplicate field) and converts a hash with more fields
// than hash-max-listpack-entries (long values stay in the listpack, as Redis 7.0 loads them).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "types/fair_random.h"
#include "types/hash_field_expire.h"
#include "types/listpack.h"
#include "types/member_nodes.h"
#include "types/packed_or_large.h"
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

  Encoding encoding() const { return rep_.is_large() ? Encoding::kHashtable : Encoding::kListpack; }
  size_t size() const;
  // The value of `field` into *out; false if the field does not exist.
  bool Get(std::string_view field, std::string* out);
  // The value of `field` as a view into the hash, or into `scratch` (kMaxInt64Chars + 1 bytes)
  // for an integer-encoded listpack value; false if the field does not exist. The view is
  // valid until the hash or scratch changes. Allocation-free (HGET, HMGET, HSTRLEN, HINCRBY).
  bool GetView(std::string_view field, char* scratch, std::string_view* out);
  bool Exists(std::string_view field);
  // Converts a listpack hash to a hashtable before a write whose longest argument is `longest`
  // bytes and whose arguments add up to `total` bytes, when that write could not stay a
  // listpack: an argument over hash-max-listpack-value, or a blob that would pass the
  // listpack's safe size. Redis checks the arguments of HSET/HMSET this way before it looks at
  // the fields (so all pairs of one HSET see the same encoding).
  void PrepareWrite(size_t longest, size_t total, const TypeLimits& limits);
  // Sets field to value; true if the field is new. Converts to a hashtable when the hash
  // passes a limit.
  // `keep_ttl`: a replaced field keeps its expire time (HINCRBY); otherwise it loses it (HSET).
  bool Set(std::string_view field, std::string_view value, const TypeLimits& limits,
           bool keep_ttl = false);
  bool Delete(std::string_view field);

  // --- Per-field expire times (absolute unix ms; 0 = none). ---
  // Whether any field carries an expire time.
  bool HasFieldExpires() const { return rep_.is_large() && large()->expires != nullptr; }
  // How many fields carry one.
  size_t FieldExpireCount() const { return HasFieldExpires() ? large()->expires->size() : 0; }
  // The smallest field expire time of the hash, 0 if none (the key's next field expiry).
  int64_t MinFieldExpire() const { return HasFieldExpires() ? large()->expires->Min() : 0; }
  // The expire time of `field` into *when_ms (0 if it has none); false if no such field.
  bool FieldExpire(std::string_view field, int64_t* when_ms);
  // Sets the expire time of an existing field (when_ms > 0), converting a listpack hash to a
  // hashtable first; false (and no change) if the field does not exist.
  bool SetFieldExpire(std::string_view field, int64_t when_ms);
  // Removes the expire time of `field`; true if it had one.
  bool PersistField(std::string_view field);
  // Up to `max` fields whose expire time is <= now_ms, smallest time first (copies: the
  // caller deletes them).
  std::vector<std::string> DueFields(int64_t now_ms, size_t max) const;
  // Calls fn(field, value, expire_ms) for every field, expire_ms 0 for none (RDB and AOF
  // writers, DUMP). The hash must not change during the walk.
  template <typename Fn>
  void ForEachWithExpire(Fn&& fn) const;
  // Adds a field with its expire time (0 = none): the builder for loaders (RDB, RESTORE).
  // False if the field already exists (nothing changes then).
  bool AddWithExpire(std::string_view field, std::string_view value, int64_t expire_ms,
                     const TypeLimits& limits);
  // Calls fn(field, value) for every field: listpack order, or no particular order. The hash
  // must not change during the walk.
  template <typename Fn>
  void ForEach(Fn&& fn) const;

  // Calls fn(field, value) `count` times, each for a field drawn uniformly at random (repeats
  // allowed), in random order. The hash must not be empty, nor change during the calls.
  template <typename Fn>
  void RandomPairs(size_t count, Fn&& fn);
  // Calls fn(field, value) for `count` distinct fields drawn uniformly at random; requires
  // 0 < count < size(). A listpack hash answers them in its own order, a hashtable hash in
  // random order. O(size) when count is more than a third of the hash, else O(count).
  template <typename Fn>
  void DistinctRandomPairs(size_t count, Fn&& fn);

  HashObject* Clone() const;
  size_t MemoryBytes(size_t samples) const;
  void ConvertToHashtable();
  // A hash holding the validated listpack `lp` (RDB loading: Value::InPlace builds it there).
  explicit HashObject(Listpack lp) : rep_(std::move(lp)) {}

  const Listpack& listpack() const { return lp(); }
  // The hashtable encoding's table (HSCAN walks it with HashTable::Scan); only valid when
  // encoding() is kHashtable.
  HashTable<FieldTableTraits>& table() { return large()->fields; }

 private:
  // The text of a listpack entry, formatted into buf (kMaxInt64Chars + 1 bytes) if an integer.
  static std::string_view EntryText(const ListpackEntry& e, char* buf) {
    return e.is_int ? std::string_view(buf, FormatInt64(e.num, buf)) : e.str;
  }
  // Calls fn for the field at listpack position p and its value.
  template <typename Fn>
  void VisitListpackPair(Listpack::Pos p, Fn& fn) const {
    char fbuf[kMaxInt64Chars + 1], vbuf[kMaxInt64Chars + 1];
    fn(EntryText(lp().Get(p), fbuf), EntryText(lp().Get(lp().Next(p)), vbuf));
  }
  // The listpack positions of every field, in order.
  std::vector<Listpack::Pos> FieldPositions() const;

  // The hashtable encoding: the table, and the field expire times when any field has one.
  struct Large {
    HashTable<FieldTableTraits> fields;
    std::unique_ptr<FieldExpires> expires;
  };
  // The index of expire times, created on first use.
  FieldExpires& Expires() {
    if (large()->expires == nullptr) large()->expires = std::make_unique<FieldExpires>();
    return *large()->expires;
  }
  // Clears n's expire time (if any), freeing the index when it empties; returns the time.
  int64_t ClearExpire(const FieldNode* n);

  Listpack& lp() { return rep_.packed(); }
  const Listpack& lp() const { return rep_.packed(); }
  Large* large() const { return rep_.large(); }

  // The listpack, or the table allocated on conversion (a table header is 72 bytes, and small
  // hashes are the common case): one word, so the hash lives inside its key's Value.
  PackedOrLarge<Listpack, Large> rep_;
};

static_assert(sizeof(HashObject) == 8, "a hash lives inside its key's Value (Value::InPlace)");

template <typename Fn>
void HashObject::ForEachWithExpire(Fn&& fn) const {
  const FieldExpires* ex = HasFieldExpires() ? large()->expires.get() : nullptr;
  if (ex == nullptr) {
    ForEach([&fn](std::string_view f, std::string_view v) { fn(f, v, int64_t{0}); });
    return;
  }
  large()->fields.ForEach(
      [&fn, ex](const FieldNode* n) { fn(n->field(), n->value(), ex->Get(n)); });
}

template <typename Fn>
void HashObject::ForEach(Fn&& fn) const {
  if (rep_.is_large()) {
    large()->fields.ForEach([&fn](const FieldNode* n) { fn(n->field(), n->value()); });
    return;
  }
  char fbuf[kMaxInt64Chars + 1], vbuf[kMaxInt64Chars + 1];
  for (Listpack::Pos p = lp().First(); p != Listpack::kNone; p = lp().Next(lp().Next(p))) {
    ListpackEntry f = lp().Get(p);
    ListpackEntry v = lp().Get(lp().Next(p));
    std::string_view fs = f.is_int ? std::string_view(fbuf, FormatInt64(f.num, fbuf)) : f.str;
    std::string_view vs = v.is_int ? std::string_view(vbuf, FormatInt64(v.num, vbuf)) : v.str;
    fn(fs, vs);
  }
}

template <typename Fn>
void HashObject::RandomPairs(size_t count, Fn&& fn) {
  if (rep_.is_large()) {
    while (count-- > 0) {
      const FieldNode* n = FairRandomNode(large()->fields);
      fn(n->field(), n->value());
    }
    return;
  }
  const size_t fields = size();
  if (count == 1) {
    VisitListpackPair(lp().Seek(static_cast<int64_t>(2 * (RandomWord() % fields))), fn);
    return;
  }
  // One walk to learn where the fields are, then O(1) per pick.
  const std::vector<Listpack::Pos> pos = FieldPositions();
  while (count-- > 0) VisitListpackPair(pos[RandomWord() % fields], fn);
}

template <typename Fn>
void HashObject::DistinctRandomPairs(size_t count, Fn&& fn) {
  size_t left = size();
  if (!rep_.is_large()) {
    // Selection sampling (Knuth's algorithm S): one walk, each field taken with probability
    // needed / left, which yields every subset of `count` fields with the same chance.
    size_t needed = count;
    for (Listpack::Pos p = lp().First(); needed > 0; p = lp().Next(lp().Next(p)), --left) {
      if (RandomWord() % left < needed) {
        VisitListpackPair(p, fn);
        --needed;
      }
    }
    return;
  }
  if (count * 3 > left) {
    // Many of them: shuffle the first `count` slots of an array of every node (Fisher-Yates).
    std::vector<const FieldNode*> nodes;
    nodes.reserve(left);
    large()->fields.ForEach([&nodes](const FieldNode* n) { nodes.push_back(n); });
    for (size_t i = 0; i < count; ++i) {
      std::swap(nodes[i], nodes[i + RandomWord() % (nodes.size() - i)]);
      fn(nodes[i]->field(), nodes[i]->value());
    }
    return;
  }
  // Few of them: draw until `count` distinct nodes came up (at most 1.5 draws per node on
  // average, since count <= size / 3).
  std::unordered_set<const FieldNode*> seen;
  seen.reserve(count);
  while (seen.size() < count) {
    const FieldNode* n = FairRandomNode(large()->fields);
    if (seen.insert(n).second) fn(n->field(), n->value());
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
// A hash from a loaded listpack of field/value pairs (RDB_TYPE_HASH_LISTPACK, or a converted
// ziplist or zipmap): an error if the count is odd or a field repeats, the empty-key error if
// it has no pair; a hashtable if it has more fields than hash-max-listpack-entries or, with
// `check_lengths`, a field or value longer than hash-max-listpack-value. Redis 7.0 checks the
// lengths only for zipmaps; a listpack or ziplist hash with a long value stays a listpack.
// `encoding` names the payload's container in the error ("Hash ziplist integrity check
// failed."), the words Redis 7.0 logs for a refused RESTORE or RDB object.
Result<Value> HashFromLoadedListpack(Listpack lp, const TypeLimits& limits, bool check_lengths,
                                     const char* encoding = "Hash listpack");

}  // namespace redistp
