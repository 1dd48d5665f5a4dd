#include "db/slot_index.h"

namespace redistp {

void SlotIndex::Keys(int slot, size_t max, std::vector<Entry*>* out) const {
  const PtrSet& set = slots_[static_cast<size_t>(slot)];
  if (max == 0 || set.size() == 0) return;
  // One sweep from slot 0 of the set's array visits every entry once.
  set.Sample(0, out->size() + std::min(max, set.size()), set.capacity(), out);
}

}  // namespace redistp
