#include "watch/fence.h"

namespace redistp {

Result<uint64_t> FenceCounter::Next() {
  const uint64_t token = last_ + 1;
  if (store_ != nullptr && token > reserved_) {
    // The last token of the token's block: tokens up to it need no further write.
    const uint64_t mark = ((token >> kBlockBits) + 1) << kBlockBits;
    Status s = store_->Persist(mark - 1);
    if (!s.ok()) {
      ++failures_;
      return s;
    }
    reserved_ = mark - 1;
    ++reservations_;
  }
  last_ = token;
  return token;
}

}  // namespace redistp
