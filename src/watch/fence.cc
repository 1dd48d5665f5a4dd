#include "watch/fence.h"

namespace redistp {

Status FenceCounter::Reserve(uint64_t token) {
  // The last token of the token's block: tokens up to it need no further write.
  const uint64_t mark = (((token >> kBlockBits) + 1) << kBlockBits) - 1;
  Status s = store_->Persist(mark);
  if (!s.ok()) {
    ++failures_;
    return s;
  }
  reserved_ = mark;
  ++reservations_;
  if (listener_ != nullptr) listener_->OnReserved(mark);
  return Status::Ok();
}

Status FenceCounter::RaiseDurable(uint64_t floor) {
  Raise(floor);
  if (store_ == nullptr || last_ <= reserved_) return Status::Ok();
  return Reserve(last_);
}

Result<uint64_t> FenceCounter::Next() {
  const uint64_t token = last_ + 1;
  if (store_ != nullptr && token > reserved_) {
    Status s = Reserve(token);
    if (!s.ok()) return s;
  }
  last_ = token;
  return token;
}

}  // namespace redistp
