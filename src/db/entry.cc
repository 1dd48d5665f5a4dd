#include "db/entry.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "util/memory.h"

namespace redistp {

Entry* Entry::Create(std::string_view key, Value&& value) {
  void* mem = std::malloc(sizeof(Entry) + key.size());
  if (mem == nullptr) throw std::bad_alloc();
  auto* e = static_cast<Entry*>(mem);
  e->next = nullptr;
  new (&e->value) Value(std::move(value));
  e->key_len = static_cast<uint32_t>(key.size());
  e->lru_flags = 0;
  if (!key.empty()) std::memcpy(e->key_data(), key.data(), key.size());
  return e;
}

void Entry::Destroy(Entry* e) {
  e->value.~Value();
  std::free(e);
}

size_t Entry::AllocSize() const { return AllocationSize(this); }

}  // namespace redistp
