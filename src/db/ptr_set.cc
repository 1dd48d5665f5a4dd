#include "db/ptr_set.h"

namespace redistp {

template <typename Slot, size_t kMaxLoadPercent>
void EntryTable<Slot, kMaxLoadPercent>::Resize(size_t n) {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(n, Slot{});
  used_ = 0;
  const size_t mask = n - 1;
  for (const Slot& s : old) {
    if (s.entry == nullptr) continue;
    size_t i = HashPtr(s.entry) & mask;
    while (slots_[i].entry != nullptr) i = (i + 1) & mask;
    slots_[i] = s;
    ++used_;
  }
}

template <typename Slot, size_t kMaxLoadPercent>
const Slot* EntryTable<Slot, kMaxLoadPercent>::Find(const Entry* e) const {
  if (used_ == 0) return nullptr;
  const size_t mask = slots_.size() - 1;
  for (size_t i = HashPtr(e) & mask;; i = (i + 1) & mask) {
    if (slots_[i].entry == e) return &slots_[i];
    if (slots_[i].entry == nullptr) return nullptr;
  }
}

template <typename Slot, size_t kMaxLoadPercent>
Slot* EntryTable<Slot, kMaxLoadPercent>::Emplace(Entry* e, bool* added) {
  if ((used_ + 1) * 100 > slots_.size() * kMaxLoadPercent) {
    Resize(slots_.empty() ? 16 : slots_.size() * 2);
  }
  const size_t mask = slots_.size() - 1;
  for (size_t i = HashPtr(e) & mask;; i = (i + 1) & mask) {
    if (slots_[i].entry == e) {
      *added = false;
      return &slots_[i];
    }
    if (slots_[i].entry == nullptr) {
      slots_[i] = Slot{};
      slots_[i].entry = e;
      ++used_;
      *added = true;
      return &slots_[i];
    }
  }
}

template <typename Slot, size_t kMaxLoadPercent>
bool EntryTable<Slot, kMaxLoadPercent>::Erase(const Entry* e) {
  if (used_ == 0) return false;
  const size_t mask = slots_.size() - 1;
  size_t i = HashPtr(e) & mask;
  while (slots_[i].entry != e) {
    if (slots_[i].entry == nullptr) return false;
    i = (i + 1) & mask;
  }
  // Backward-shift deletion: pull later members of the probe run into the hole.
  size_t hole = i;
  for (size_t j = (i + 1) & mask; slots_[j].entry != nullptr; j = (j + 1) & mask) {
    size_t home = HashPtr(slots_[j].entry) & mask;
    // Move j into the hole if its home is not in the cyclic range (hole, j].
    bool in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!in_range) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = Slot{};
  --used_;
  if (slots_.size() > 64 && used_ * 8 < slots_.size()) Resize(slots_.size() / 2);
  return true;
}

template <typename Slot, size_t kMaxLoadPercent>
size_t EntryTable<Slot, kMaxLoadPercent>::Sample(size_t start, size_t max, size_t max_visits,
                                                 std::vector<Entry*>* out) const {
  if (slots_.empty()) return 0;
  const size_t mask = slots_.size() - 1;
  size_t i = start & mask;
  // Never wrap past the starting slot: each entry is returned at most once per call.
  if (max_visits > slots_.size()) max_visits = slots_.size();
  for (size_t v = 0; v < max_visits && out->size() < max; ++v, i = (i + 1) & mask) {
    if (slots_[i].entry != nullptr) out->push_back(slots_[i].entry);
  }
  return i;
}

template class EntryTable<PtrSetSlot, 50>;
template class EntryTable<ExpireSlot, 75>;

}  // namespace redistp
