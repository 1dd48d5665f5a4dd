// Value: what a key holds, in 16 bytes.
//
// Every Redis type has a kind here. Strings are stored three ways, chosen by Redis's rules so
// that OBJECT ENCODING answers as Redis does:
//   - int:    the text is a canonical 64-bit integer ("123", not "0123") of at most 20 chars;
//             stored as int64_t, formatted on read. Redis's "int" encoding.
//   - inline: up to kInlineCap bytes stored inside the Value itself (no allocation);
//   - heap:   a HeapString holding length, capacity and bytes.
// Strings up to 44 bytes created by SET report "embstr", longer or mutated ones (APPEND,
// SETRANGE, SETBIT ...) report "raw", mirroring Redis: the `raw` flag records the mutation.
// Aggregate types (list, set, zset, hash, stream) hold an object their type owns: in place, in
// the first 8 bytes, when it is one word (hashes, sets and sorted sets: types/packed_or_large.h),
// so a small aggregate costs no allocation beyond its packed buffer; otherwise a pointer to it.
// object() answers the same for both. Every operation on the object (free, copy, memory,
// encoding name, length, digest, serialization) is a row of TypeOps (type_ops.h), so the Value
// never switches on an aggregate's type itself.
//
// An object held in place moves with its Value: a reference taken with object() (HashOf,
// SetOf...) is good only while that Value stays where it is, so fill a new Value before moving
// it into the keyspace, and take the reference again from the entry after.
//
// A Value owns what it points to: moving transfers, destruction frees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <utility>

#include "util/numbers.h"

namespace redistp {

enum class ValueType : uint8_t { kString = 0, kList, kSet, kZSet, kHash, kStream };

const char* ValueTypeName(ValueType t);

// A heap string: header + bytes, one allocation. Capacity may exceed length (APPEND growth).
struct HeapString {
  size_t len;
  size_t cap;
  char data[1];

  static HeapString* Create(std::string_view s, size_t cap);
  static void Destroy(HeapString* h);
  // Returns h, or a reallocated copy, able to hold `need` bytes; grows geometrically.
  static HeapString* Grow(HeapString* h, size_t need);
  size_t AllocSize() const;
};

class Value {
 public:
  static constexpr size_t kInlineCap = 14;
  static constexpr size_t kEmbstrLimit = 44;  // Redis's OBJ_ENCODING_EMBSTR_SIZE_LIMIT

  Value() { SetEmpty(); }
  ~Value() {
    if (storage() >= kHeap) Release();
  }
  Value(Value&& o) noexcept {
    std::memcpy(static_cast<void*>(this), &o, sizeof(Value));
    o.SetEmpty();
  }
  Value& operator=(Value&& o) noexcept {
    if (this != &o) {
      Release();
      std::memcpy(static_cast<void*>(this), &o, sizeof(Value));
      o.SetEmpty();
    }
    return *this;
  }
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;

  // Creates a string value with Redis's encoding choice (int if canonical integer text).
  static Value String(std::string_view s);
  // Creates a string value that never uses the int encoding (raw bytes, e.g. after APPEND).
  static Value RawString(std::string_view s);
  // Creates an embstr/raw string by length, never int (INCRBYFLOAT results, as Redis does).
  static Value TextString(std::string_view s);
  static Value Integer(int64_t v);
  // An aggregate of type t (not kString) holding `obj`, which the Value owns from now on and
  // frees through the type's TypeOps::destroy. The type must have a TypeOps row.
  static Value Object(ValueType t, void* obj);
  // An aggregate of type t whose object T (one word, with a TypeOps row that has `adopt`) is
  // built in place from `args`, with no heap block in between.
  template <typename T, typename... Args>
  static Value InPlace(ValueType t, Args&&... args) {
    static_assert(sizeof(T) <= 8 && alignof(T) <= 8, "an object held in place fits 8 bytes");
    Value v;
    new (v.raw_) T(std::forward<Args>(args)...);
    v.SetTag(t, kPointer, false);
    v.tag_ |= kInPlaceFlag;
    return v;
  }

  ValueType type() const { return static_cast<ValueType>(tag_ & 0x7); }
  bool is_string() const { return type() == ValueType::kString; }
  bool is_int() const { return storage() == kInt; }
  bool is_aggregate() const { return storage() == kPointer; }
  // The aggregate's object (nullptr for strings).
  void* object() const { return is_aggregate() ? object_address() : nullptr; }
  // A deep copy with the same type and encoding (COPY): OBJECT ENCODING answers the same.
  Value Clone() const;
  // An aggregate with no element left: the Database deletes the key when a mutation leaves
  // its value so. Strings are never "empty" in this sense (an empty string is a value).
  bool IsEmptyAggregate() const;

  // The string's bytes. For ints the text is formatted into `scratch`, which must hold
  // kMaxInt64Chars + 1 bytes and outlive the view.
  std::string_view View(char* scratch) const;
  // Convenience copy of the bytes.
  std::string ToString() const;
  size_t StringLength() const;
  bool GetInt(int64_t* out) const;
  // OBJECT ENCODING name.
  const char* EncodingName() const;
  // Bytes allocated outside the Value (for MEMORY USAGE); `samples` as TypeOps::memory.
  size_t HeapBytes(size_t samples = 0) const;

  // Mutable byte access for in-place string edits (SETRANGE, SETBIT, APPEND). Converts an int
  // or inline value into a heap string of at least `min_len` bytes (zero-padded) and marks the
  // value raw. Returns the buffer; its length is StringLength() after the call.
  char* MutableBytes(size_t min_len);
  // Appends bytes (APPEND); marks raw.
  void Append(std::string_view s);

 private:
  enum Storage : uint8_t { kInline = 0, kInt = 1, kHeap = 2, kPointer = 3 };
  static constexpr uint8_t kRawFlag = 0x80;
  // With kPointer: the object is held in raw_ itself, not pointed to.
  static constexpr uint8_t kInPlaceFlag = 0x40;

  Storage storage() const { return static_cast<Storage>((tag_ >> 3) & 0x3); }
  void SetTag(ValueType t, Storage s, bool raw) {
    tag_ = static_cast<uint8_t>(static_cast<uint8_t>(t) | (s << 3) | (raw ? kRawFlag : 0));
  }
  void SetEmpty() {
    std::memset(static_cast<void*>(this), 0, sizeof(Value));
    SetTag(ValueType::kString, kInline, false);
  }
  void Release();
  void SetBytes(std::string_view s, bool raw);

  // Layout of the 16 bytes: inline strings use [0, 14) for bytes and [14] for the length;
  // ints and pointers use [0, 8); [15] is always the tag.
  int64_t int_value() const {
    int64_t v;
    std::memcpy(&v, raw_, sizeof(v));
    return v;
  }
  void set_int_value(int64_t v) { std::memcpy(raw_, &v, sizeof(v)); }
  HeapString* heap() const {
    HeapString* h;
    std::memcpy(&h, raw_, sizeof(h));
    return h;
  }
  void set_heap(HeapString* h) { std::memcpy(raw_, &h, sizeof(h)); }
  void* pointer() const {
    void* p;
    std::memcpy(&p, raw_, sizeof(p));
    return p;
  }
  void set_pointer(void* p) { std::memcpy(raw_, &p, sizeof(p)); }
  bool in_place() const { return (tag_ & kInPlaceFlag) != 0; }
  // The aggregate's object, held in place or pointed to.
  void* object_address() const { return in_place() ? const_cast<unsigned char*>(raw_) : pointer(); }
  char* inline_data() { return reinterpret_cast<char*>(raw_); }
  const char* inline_data() const { return reinterpret_cast<const char*>(raw_); }
  uint8_t inline_len() const { return raw_[14]; }
  void set_inline_len(size_t n) { raw_[14] = static_cast<uint8_t>(n); }

  alignas(8) unsigned char raw_[15];
  uint8_t tag_;
};

static_assert(sizeof(Value) == 16, "Value must stay 16 bytes");

}  // namespace redistp
