// SetObject: the value of a set key, and its TypeOps row.
//
// Redis 7.0 keeps a set in one of two encodings (a listpack set encoding came with 7.2):
//   intset     every member is a canonical 64-bit integer and there are at most
//              set-max-intset-entries of them: a sorted array of integers (types/intset.h);
//   hashtable  otherwise: a hash table of member nodes (util/hash_table.h, types/member_nodes.h).
// A set created with a first member that is an integer starts as an intset; adding a member
// that is not an integer, or one past set-max-intset-entries, converts it to a hashtable for
// good (Redis never converts back). OBJECT ENCODING answers "intset" or "hashtable".
//
// RDB: an intset set is RDB_TYPE_SET_INTSET (the intset blob as one string), a hashtable set
// RDB_TYPE_SET (the count, then each member). Loading validates blobs and converts an intset
// over the limit, as Redis does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "types/intset.h"
#include "types/member_nodes.h"
#include "types/packed_or_large.h"
#include "types/type_limits.h"
#include "types/type_ops.h"
#include "types/value.h"
#include "util/hash_table.h"

namespace redistp {

class SetObject {
 public:
  enum class Encoding : uint8_t { kIntset, kHashtable };

  // An empty set in the encoding Redis would pick for a set whose first member is `first`.
  explicit SetObject(std::string_view first);
  SetObject(const SetObject&) = delete;
  SetObject& operator=(const SetObject&) = delete;

  Encoding encoding() const { return rep_.is_large() ? Encoding::kHashtable : Encoding::kIntset; }
  size_t size() const;
  bool Contains(std::string_view member);
  // Adds `member`; false if it was there already. May convert intset -> hashtable.
  bool Add(std::string_view member, const TypeLimits& limits);
  bool Remove(std::string_view member);
  // Drops every member (the set is then empty; its encoding stays).
  void Clear();

  // Random members (SPOP, SRANDMEMBER). A MemberRef names one member while the set does not
  // change: the value of an intset member, or the node of a hashtable member.
  struct MemberRef {
    int64_t value = 0;
    const MemberNode* node = nullptr;
  };
  // The member's text; an intset member is formatted into `buf` (kMaxInt64Chars + 1 bytes).
  std::string_view View(const MemberRef& r, char* buf) const {
    return r.node != nullptr ? r.node->member() : std::string_view(buf, FormatInt64(r.value, buf));
  }
  // A member chosen uniformly at random, O(1) (HashTable::Random's fairness for a hashtable).
  // The set must not be empty.
  MemberRef RandomMember();
  // Replaces *out with `count` distinct members chosen at random, in random order
  // (0 < count <= size()). Redis's two strategies: when count is a large share of the set,
  // a partial shuffle of every member (O(size)); otherwise random picks with a seen-set for
  // the duplicates (O(count) expected).
  void PickDistinct(size_t count, std::vector<MemberRef>* out);
  // Removes a member named by a MemberRef taken since the set last changed (other than by
  // RemoveRef of other refs of the same pick).
  void RemoveRef(const MemberRef& r);

  // Calls fn(member) for every member (intset members as their decimal text), in no
  // particular order. The set must not change during the walk.
  template <typename Fn>
  void ForEach(Fn&& fn) const;
  // As ForEach, but stops as soon as fn(member) returns false (SINTERCARD's LIMIT). A
  // hashtable is walked bucket by bucket with its SCAN cursor; the set must not change.
  template <typename Fn>
  void ForEachWhile(Fn&& fn);

  // A set holding `is` in the intset encoding (RDB loading: Value::InPlace builds it there).
  explicit SetObject(Intset is) : rep_(std::move(is)) {}
  SetObject* Clone() const;
  size_t MemoryBytes(size_t samples) const;
  void ConvertToHashtable();

  const Intset& intset() const { return is(); }
  // The hashtable encoding's table; only valid when encoding() is kHashtable.
  HashTable<MemberTableTraits>& table() { return *large(); }
  const HashTable<MemberTableTraits>& table() const { return *large(); }

 private:
  SetObject() = default;
  Intset& is() { return rep_.packed(); }
  const Intset& is() const { return rep_.packed(); }
  HashTable<MemberTableTraits>* large() const { return rep_.large(); }

  // The intset, or the table allocated when the set becomes a hashtable (a table header is 72
  // bytes, and small sets are the common case): one word, so the set lives inside its key's
  // Value.
  PackedOrLarge<Intset, HashTable<MemberTableTraits>> rep_;
};

static_assert(sizeof(SetObject) == 8, "a set lives inside its key's Value (Value::InPlace)");

template <typename Fn>
void SetObject::ForEach(Fn&& fn) const {
  if (!rep_.is_large()) {
    char buf[kMaxInt64Chars + 1];
    for (size_t i = 0; i < is().Size(); ++i) {
      fn(std::string_view(buf, FormatInt64(is().At(i), buf)));
    }
    return;
  }
  large()->ForEach([&fn](const MemberNode* n) { fn(n->member()); });
}

template <typename Fn>
void SetObject::ForEachWhile(Fn&& fn) {
  if (!rep_.is_large()) {
    char buf[kMaxInt64Chars + 1];
    for (size_t i = 0; i < is().Size(); ++i) {
      if (!fn(std::string_view(buf, FormatInt64(is().At(i), buf)))) return;
    }
    return;
  }
  bool go_on = true;
  uint64_t cursor = 0;
  do {
    cursor = large()->Scan(cursor, [&](MemberNode* n) {
      if (go_on) go_on = fn(n->member());
    });
  } while (cursor != 0 && go_on);
}

extern const TypeOps kSetOps;

inline SetObject& SetOf(Value& v) { return *static_cast<SetObject*>(v.object()); }
inline const SetObject& SetOf(const Value& v) { return *static_cast<const SetObject*>(v.object()); }
// A new empty set value whose encoding suits a first member `first`.
Value NewSetValue(std::string_view first);
// A new empty set value in the intset encoding: the start of a SINTERSTORE/SUNIONSTORE/
// SDIFFSTORE result, which Redis builds as an intset that converts when a member asks for it.
Value NewIntsetSetValue();

Result<Value> LoadSetPlain(RdbReader& r, const TypeLimits& limits);
Result<Value> LoadSetIntset(RdbReader& r, const TypeLimits& limits);
Result<Value> LoadSetListpack(RdbReader& r, const TypeLimits& limits);

}  // namespace redistp
