// TypeOps: every operation the server performs on a value without knowing its type.
//
// A Value of an aggregate type (list, set, zset, hash, stream) holds an object that its type
// owns, or a pointer to one. Everything generic code needs from such an object goes through one row
// of function pointers per type, kept in one table (type_ops.cc): freeing it, a deep copy (COPY),
// its memory (MEMORY USAGE, with SAMPLES), its OBJECT ENCODING name, its element count (an
// aggregate left empty by a command is deleted by the Database's mutation handle, as Redis
// deletes emptied keys, except a stream's), its DEBUG DIGEST contribution and its RDB serialization
// (persistence and DUMP/RESTORE). Commands and the keyspace never switch on the type: a new type
// adds its file under src/types/ and one row here.
//
// A hash, set or sorted set is one word (its packed buffer, or its large form's table) and lives
// inside the Value itself; its row says so with `adopt` and `destruct`. Lists and streams are
// pointed to.
//
// Strings are not aggregates (they live inside the Value: int, inline or heap bytes) and have
// no row; Value implements their operations directly. A type whose row is still missing cannot
// be created, so no Value ever holds an object without operations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>

#include "types/type_limits.h"
#include "types/value.h"
#include "util/status.h"

namespace redistp {

class ValueDigest;
class RdbWriter;
class RdbReader;

struct TypeOps {
  ValueType type;
  // OBJECT ENCODING name of the object's current representation ("listpack", "quicklist"...).
  const char* (*encoding)(const void* obj);
  void (*destroy)(void* obj);
  // A deep copy in the same encoding; the copy is owned by the caller.
  void* (*clone)(const void* obj);
  // Bytes allocated for the object and its elements. `samples` > 0 estimates from that many
  // elements, as MEMORY USAGE ... SAMPLES does; 0 counts every element.
  size_t (*memory)(const void* obj, size_t samples);
  // Number of elements (0 = empty: the key is deleted when a mutation leaves it so).
  size_t (*length)(const void* obj);
  // Folds the elements into a DEBUG DIGEST-VALUE digest the way Redis does for the type.
  void (*digest)(const void* obj, ValueDigest& d);
  // RDB: the type byte this object is written with in RDB format `rdb_version` (its encoding
  // decides, e.g. a listpack hash is RDB_TYPE_HASH_LISTPACK; so does the version, e.g. a small
  // set is RDB_TYPE_SET_LISTPACK from version 11 on), and the object payload after that byte,
  // in the form of the writer's version (RdbWriter::version()); the two must agree.
  uint8_t (*rdb_type)(const void* obj, int rdb_version);
  void (*serialize)(const void* obj, RdbWriter& w);
  // A key of this type stays when its last element goes (a stream emptied by XDEL or XTRIM
  // stays a stream, as in Redis); other types' emptied keys are deleted.
  bool keep_when_empty = false;
  // Set for a type whose object fits in the Value's first 8 bytes (a PackedOrLarge body, types/
  // packed_or_large.h): the Value holds the object itself rather than a pointer to it. `adopt`
  // moves a heap object made by `new` (or returned by `clone`) into `dst` and frees the heap
  // block; `destruct` ends an object held in place without freeing its storage. Such objects
  // are moved by copying their bytes, so they must not point into themselves.
  void (*adopt)(void* heap_obj, void* dst) = nullptr;
  void (*destruct)(void* obj) = nullptr;
};

// The adopt/destruct pair of a type held in place.
template <typename T>
void AdoptInPlace(void* heap_obj, void* dst) {
  static_assert(sizeof(T) <= 8 && alignof(T) <= 8, "an object held in place fits 8 bytes");
  std::memcpy(dst, static_cast<const void*>(heap_obj), sizeof(T));
  ::operator delete(heap_obj, sizeof(T));  // its bytes live on in dst: no destructor here
}
template <typename T>
void DestructInPlace(void* obj) {
  static_cast<T*>(obj)->~T();
}

// The row of an aggregate type, or nullptr for strings and for types not built yet.
const TypeOps* FindTypeOps(ValueType t);

// Reads one object of RDB type `rdb_type` (strings and every aggregate with a row) from `r`;
// aggregates are built with `limits`. Malformed input is an error, never a crash; an RDB type
// nobody reads is an error too; an aggregate with no element is the error kRdbEmptyKey (Redis
// skips such keys when loading).
Result<Value> DeserializeValue(uint8_t rdb_type, RdbReader& r, const TypeLimits& limits);

// Writes the RDB type byte and payload of `v` (DUMP), in the writer's RDB version.
void SerializeValue(const Value& v, RdbWriter& w);
// The two halves, for an RDB file, where the key goes between them.
uint8_t RdbTypeOf(const Value& v, int rdb_version);
void SerializePayload(const Value& v, RdbWriter& w);

// An aggregate's RDB reader, by RDB type byte: the rows of the deserializer table.
struct RdbLoader {
  uint8_t rdb_type;
  Result<Value> (*load)(RdbReader& r, const TypeLimits& limits);
};

}  // namespace redistp
