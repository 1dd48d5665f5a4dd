// The replication backlog's ring (backlog.h).
#include "replication/backlog.h"

#include <algorithm>
#include <cstring>

namespace redistp {

ReplBacklog::ReplBacklog(size_t capacity, int64_t next_offset)
    : buf_(std::max<size_t>(capacity, 1), '\0'), next_offset_(next_offset) {}

void ReplBacklog::Append(std::string_view bytes) {
  next_offset_ += static_cast<int64_t>(bytes.size());
  const size_t cap = buf_.size();
  // Only the last `cap` bytes can stay: skip what would be overwritten at once.
  if (bytes.size() >= cap) {
    std::memcpy(buf_.data(), bytes.data() + bytes.size() - cap, cap);
    head_ = 0;
    len_ = cap;
    return;
  }
  size_t first = std::min(bytes.size(), cap - head_);
  std::memcpy(buf_.data() + head_, bytes.data(), first);
  std::memcpy(buf_.data(), bytes.data() + first, bytes.size() - first);
  head_ = (head_ + bytes.size()) % cap;
  len_ = std::min(cap, len_ + bytes.size());
}

void ReplBacklog::CopyFrom(int64_t offset, std::string* out) const {
  const size_t want = static_cast<size_t>(next_offset_ - offset);
  if (want == 0 || want > len_) return;
  const size_t cap = buf_.size();
  size_t start = (head_ + cap - want) % cap;
  size_t first = std::min(want, cap - start);
  out->append(buf_.data() + start, first);
  out->append(buf_.data(), want - first);
}

void ReplBacklog::Resize(size_t capacity) {
  capacity = std::max<size_t>(capacity, 1);
  if (capacity == buf_.size()) return;
  std::string keep;
  const size_t n = std::min(len_, capacity);
  CopyFrom(next_offset_ - static_cast<int64_t>(n), &keep);
  buf_.assign(capacity, '\0');
  std::memcpy(buf_.data(), keep.data(), keep.size());
  len_ = keep.size();
  head_ = len_ % capacity;
}

}  // namespace redistp
