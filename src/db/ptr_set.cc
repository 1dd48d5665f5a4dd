#include "db/ptr_set.h"

namespace redistp {

void PtrSet::Resize(size_t n) {
  std::vector<Entry*> old;
  old.swap(slots_);
  slots_.assign(n, nullptr);
  used_ = 0;
  for (Entry* e : old) {
    if (e != nullptr) Insert(e);
  }
}

bool PtrSet::Insert(Entry* e) {
  if ((used_ + 1) * 2 > slots_.size()) Resize(slots_.empty() ? 16 : slots_.size() * 2);
  size_t mask = slots_.size() - 1;
  for (size_t i = HashPtr(e) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == e) return false;
    if (slots_[i] == nullptr) {
      slots_[i] = e;
      ++used_;
      return true;
    }
  }
}

bool PtrSet::Erase(Entry* e) {
  if (used_ == 0) return false;
  size_t mask = slots_.size() - 1;
  size_t i = HashPtr(e) & mask;
  while (slots_[i] != e) {
    if (slots_[i] == nullptr) return false;
    i = (i + 1) & mask;
  }
  // Backward-shift deletion: pull later members of the probe run into the hole.
  size_t hole = i;
  for (size_t j = (i + 1) & mask; slots_[j] != nullptr; j = (j + 1) & mask) {
    size_t home = HashPtr(slots_[j]) & mask;
    // Move j into the hole if its home is not in the cyclic range (hole, j].
    bool in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!in_range) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = nullptr;
  --used_;
  if (slots_.size() > 64 && used_ * 8 < slots_.size()) Resize(slots_.size() / 2);
  return true;
}

size_t PtrSet::Sample(size_t start, size_t max, size_t max_visits, std::vector<Entry*>* out) const {
  if (slots_.empty()) return 0;
  size_t mask = slots_.size() - 1;
  size_t i = start & mask;
  // Never wrap past the starting slot: each entry is returned at most once per call.
  if (max_visits > slots_.size()) max_visits = slots_.size();
  for (size_t v = 0; v < max_visits && out->size() < max; ++v, i = (i + 1) & mask) {
    if (slots_[i] != nullptr) out->push_back(slots_[i]);
  }
  return i;
}

}  // namespace redistp
