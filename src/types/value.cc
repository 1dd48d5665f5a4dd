#include "types/value.h"

#include <cstdlib>
#include <new>

#include "types/type_ops.h"
#include "util/memory.h"

namespace redistp {

const char* ValueTypeName(ValueType t) {
  switch (t) {
    case ValueType::kString:
      return "string";
    case ValueType::kList:
      return "list";
    case ValueType::kSet:
      return "set";
    case ValueType::kZSet:
      return "zset";
    case ValueType::kHash:
      return "hash";
    case ValueType::kStream:
      return "stream";
  }
  return "none";
}

HeapString* HeapString::Create(std::string_view s, size_t cap) {
  if (cap < s.size()) cap = s.size();
  auto* h = static_cast<HeapString*>(std::malloc(offsetof(HeapString, data) + cap + 1));
  if (h == nullptr) throw std::bad_alloc();
  h->len = s.size();
  h->cap = cap;
  if (!s.empty()) std::memcpy(h->data, s.data(), s.size());
  h->data[s.size()] = '\0';
  return h;
}

void HeapString::Destroy(HeapString* h) { std::free(h); }

HeapString* HeapString::Grow(HeapString* h, size_t need) {
  if (need <= h->cap) return h;
  size_t cap = need < 1024 * 1024 ? need * 2 : need + 1024 * 1024;
  auto* n = static_cast<HeapString*>(std::realloc(h, offsetof(HeapString, data) + cap + 1));
  if (n == nullptr) throw std::bad_alloc();
  n->cap = cap;
  return n;
}

size_t HeapString::AllocSize() const { return AllocationSize(this); }

void Value::Release() {
  switch (storage()) {
    case kHeap:
      HeapString::Destroy(heap());
      break;
    case kPointer:
      if (in_place()) {
        FindTypeOps(type())->destruct(raw_);
      } else {
        FindTypeOps(type())->destroy(pointer());
      }
      break;
    default:
      break;
  }
}

void Value::SetBytes(std::string_view s, bool raw) {
  if (s.size() <= kInlineCap) {
    if (!s.empty()) std::memcpy(inline_data(), s.data(), s.size());
    set_inline_len(s.size());
    SetTag(ValueType::kString, kInline, raw);
  } else {
    set_heap(HeapString::Create(s, s.size()));
    SetTag(ValueType::kString, kHeap, raw);
  }
}

Value Value::String(std::string_view s) {
  Value v;
  int64_t n;
  if (s.size() <= kMaxInt64Chars && ParseInt64(s, &n)) {
    v.set_int_value(n);
    v.SetTag(ValueType::kString, kInt, false);
  } else {
    v.SetBytes(s, s.size() > kEmbstrLimit);
  }
  return v;
}

Value Value::RawString(std::string_view s) {
  Value v;
  v.SetBytes(s, true);
  return v;
}

Value Value::TextString(std::string_view s) {
  Value v;
  v.SetBytes(s, s.size() > kEmbstrLimit);
  return v;
}

Value Value::Object(ValueType t, void* obj) {
  Value v;
  v.SetTag(t, kPointer, false);
  if (const TypeOps* ops = FindTypeOps(t); ops->adopt != nullptr) {
    ops->adopt(obj, v.raw_);
    v.tag_ |= kInPlaceFlag;
  } else {
    v.set_pointer(obj);
  }
  return v;
}

Value Value::Clone() const {
  Value v;
  switch (storage()) {
    case kHeap:
      v.set_heap(HeapString::Create({heap()->data, heap()->len}, heap()->len));
      v.tag_ = tag_;
      break;
    case kPointer: {
      const TypeOps* ops = FindTypeOps(type());
      void* copy = ops->clone(object_address());
      if (in_place()) {
        ops->adopt(copy, v.raw_);
      } else {
        v.set_pointer(copy);
      }
      v.tag_ = tag_;
      break;
    }
    default:  // int and inline strings live in the 16 bytes
      std::memcpy(static_cast<void*>(&v), this, sizeof(Value));
      break;
  }
  return v;
}

bool Value::IsEmptyAggregate() const {
  if (!is_aggregate()) return false;
  const TypeOps* ops = FindTypeOps(type());
  return !ops->keep_when_empty && ops->length(object_address()) == 0;
}

Value Value::Integer(int64_t n) {
  Value v;
  v.set_int_value(n);
  v.SetTag(ValueType::kString, kInt, false);
  return v;
}

std::string_view Value::View(char* scratch) const {
  switch (storage()) {
    case kInline:
      return {inline_data(), inline_len()};
    case kInt:
      return {scratch, FormatInt64(int_value(), scratch)};
    case kHeap:
      return {heap()->data, heap()->len};
    default:
      return {};
  }
}

std::string Value::ToString() const {
  char scratch[kMaxInt64Chars + 1];
  return std::string(View(scratch));
}

size_t Value::StringLength() const {
  switch (storage()) {
    case kInline:
      return inline_len();
    case kInt: {
      char scratch[kMaxInt64Chars + 1];
      return FormatInt64(int_value(), scratch);
    }
    case kHeap:
      return heap()->len;
    default:
      return 0;
  }
}

bool Value::GetInt(int64_t* out) const {
  if (storage() == kInt) {
    *out = int_value();
    return true;
  }
  char scratch[kMaxInt64Chars + 1];
  std::string_view s = View(scratch);
  return s.size() <= kMaxInt64Chars && ParseInt64(s, out);
}

const char* Value::EncodingName() const {
  switch (type()) {
    case ValueType::kString:
      if (storage() == kInt) return "int";
      if (tag_ & kRawFlag) return "raw";
      return StringLength() <= kEmbstrLimit ? "embstr" : "raw";
    default:
      return FindTypeOps(type())->encoding(object_address());
  }
}

size_t Value::HeapBytes(size_t samples) const {
  switch (storage()) {
    case kHeap:
      return heap()->AllocSize();
    case kPointer:
      return FindTypeOps(type())->memory(object_address(), samples);
    default:
      return 0;
  }
}

char* Value::MutableBytes(size_t min_len) {
  if (storage() != kHeap) {
    char scratch[kMaxInt64Chars + 1];
    std::string_view cur = View(scratch);
    HeapString* h = HeapString::Create(cur, std::max(min_len, cur.size()));
    Release();
    set_heap(h);
  }
  HeapString* h = heap();
  if (h->len < min_len) {
    h = HeapString::Grow(h, min_len);
    std::memset(h->data + h->len, 0, min_len - h->len);
    h->len = min_len;
    h->data[min_len] = '\0';
    set_heap(h);
  }
  SetTag(ValueType::kString, kHeap, true);
  return h->data;
}

void Value::Append(std::string_view s) {
  size_t old = StringLength();
  // s may alias our own bytes (APPEND k with the value itself): copy first if so.
  std::string copy;
  const char* p = s.data();
  const char* self = reinterpret_cast<const char*>(this);
  bool aliases_inline = p >= self && p < self + sizeof(Value);
  bool aliases_heap = storage() == kHeap && p >= heap()->data && p < heap()->data + heap()->cap + 1;
  if (aliases_inline || aliases_heap) {
    copy.assign(s);
    s = copy;
  }
  MutableBytes(old);
  HeapString* h = HeapString::Grow(heap(), old + s.size());
  std::memcpy(h->data + old, s.data(), s.size());
  h->len = old + s.size();
  h->data[h->len] = '\0';
  set_heap(h);
}

}  // namespace redistp
