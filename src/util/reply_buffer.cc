#include "util/reply_buffer.h"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace redistp {

ReplyBuffer::~ReplyBuffer() {
  Clear();
  std::free(static_);
}

void ReplyBuffer::Preallocate(size_t cap) {
  if (static_cap_ != 0 || cap == 0) return;
  static_ = static_cast<char*>(std::malloc(cap));
  if (static_ == nullptr) throw std::bad_alloc();
  static_cap_ = cap;
  static_peak_ = cap;
  fixed_ = true;
}

bool ReplyBuffer::CronResize(bool resize, bool reset_peak) {
  if (!fixed_) return false;
  size_t new_cap = static_cap_;
  if (static_cap_ > kStaticMin && static_peak_ < static_cap_ / 2) {
    new_cap = std::max(kStaticMin, static_peak_ + 1);
  } else if (static_cap_ < kStaticMax && static_peak_ >= static_cap_) {
    new_cap = std::min(kStaticMax, static_cap_ * 2);
  }
  if (reset_peak) static_peak_ = send_ - sstart_;
  if (!resize || new_cap == static_cap_ || Readable() != 0) return false;
  // Nothing is pending, so nothing is copied: a fresh allocation of the new size.
  char* s = static_cast<char*>(std::malloc(new_cap));
  if (s == nullptr) return false;  // keeping the current buffer is correct too
  std::free(static_);
  static_ = s;
  static_cap_ = new_cap;
  sstart_ = send_ = 0;
  return true;
}

ReplyBuffer::Block* ReplyBuffer::NewBlock(size_t min_cap) {
  size_t cap = std::max(kBlockBytes, min_cap);
  void* mem = std::malloc(sizeof(Block) + cap);
  if (mem == nullptr) throw std::bad_alloc();
  Block* b = new (mem) Block{cap, 0, 0};
  block_bytes_ += cap;
  return b;
}

void ReplyBuffer::FreeBlock(Block* b) {
  block_bytes_ -= b->cap;
  block_pending_ -= b->used - b->start;
  std::free(b);
}

bool ReplyBuffer::Refuse(size_t would_hold) {
  if (limit_check_ == nullptr || !limit_check_(limit_ctx_, would_hold)) return false;
  Clear();
  refused_ = true;
  // The static buffer looks full from here on, so the inline fast path sends every append
  // here, where it is dropped (Clear() gives the buffer back its room).
  sstart_ = send_ = static_cap_;
  return true;
}

void ReplyBuffer::AppendSlow(const char* p, size_t n) {
  if (n == 0 || refused_) return;
  if (blocks_.empty()) {
    // Grow the static buffer (1 KB doubling to 16 KB) while the bytes fit in it: small replies
    // never touch the block list, and an idle connection holds at most 16 KB.
    size_t pending = send_ - sstart_;
    if (!fixed_ && pending + n <= kStaticMax) {
      if (sstart_ > 0) {
        std::memmove(static_, static_ + sstart_, pending);
        sstart_ = 0;
        send_ = pending;
      }
      if (pending + n > static_cap_) {
        size_t cap = std::max(static_cap_, kStaticMin);
        while (cap < pending + n) cap *= 2;
        cap = std::min(cap, kStaticMax);
        char* s = static_cast<char*>(std::realloc(static_, cap));
        if (s == nullptr) throw std::bad_alloc();
        static_ = s;
        static_cap_ = cap;
      }
      std::memcpy(static_ + send_, p, n);
      send_ += n;
      static_peak_ = std::max(static_peak_, send_ - sstart_);
      return;
    }
    // Fill what the static buffer has left, the rest goes to blocks.
    size_t room = static_cap_ - send_;
    if (room > 0) std::memcpy(static_ + send_, p, room);
    send_ += room;
    static_peak_ = std::max(static_peak_, send_ - sstart_);
    p += room;
    n -= room;
  }
  if (n == 0) return;
  if (!blocks_.empty()) {
    Block* tail = blocks_.back();
    size_t room = std::min(n, tail->cap - tail->used);
    std::memcpy(tail->data() + tail->used, p, room);
    tail->used += room;
    block_pending_ += room;
    p += room;
    n -= room;
  }
  if (n == 0) return;
  // One new block for the rest: 16 KB, or exactly the size of a bigger remainder (a big value
  // is copied once, into a block of its own size), if the limit allows it.
  if (Refuse(block_bytes_ + std::max(kBlockBytes, n))) return;
  Block* b = NewBlock(n);
  std::memcpy(b->data(), p, n);
  b->used = n;
  block_pending_ += n;
  blocks_.push_back(b);
}

void ReplyBuffer::Append(const ReplyBuffer& other) {
  if (other.send_ > other.sstart_) {
    Append(other.static_ + other.sstart_, other.send_ - other.sstart_);
  }
  for (const Block* b : other.blocks_) Append(b->data() + b->start, b->used - b->start);
}

void ReplyBuffer::InsertAt(size_t at, std::string_view s) {
  if (refused_) return;
  if (at >= Readable()) {
    Append(s);
    return;
  }
  size_t in_static = send_ - sstart_;
  if (at < in_static) {
    if (blocks_.empty() && in_static + s.size() <= kStaticMax) {
      // Everything still fits the static buffer: open a gap there.
      std::string tail(static_ + sstart_ + at, in_static - at);
      send_ = sstart_ + at;
      Append(s);
      Append(tail);
      return;
    }
    // Move the static tail and the inserted bytes into a new first block.
    size_t tail_len = in_static - at;
    Block* b = NewBlock(s.size() + tail_len);
    std::memcpy(b->data(), s.data(), s.size());
    std::memcpy(b->data() + s.size(), static_ + sstart_ + at, tail_len);
    b->used = s.size() + tail_len;
    block_pending_ += b->used;
    send_ = sstart_ + at;
    blocks_.push_front(b);
    return;
  }
  size_t off = at - in_static;
  for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
    Block* b = *it;
    size_t len = b->used - b->start;
    if (off >= len) {
      off -= len;
      continue;
    }
    char* pos = b->data() + b->start + off;
    size_t tail_len = len - off;
    if (b->cap - b->used >= s.size()) {
      std::memmove(pos + s.size(), pos, tail_len);
      std::memcpy(pos, s.data(), s.size());
      b->used += s.size();
      block_pending_ += s.size();
      return;
    }
    // Split: this block keeps its head; a new block after it holds s and the tail.
    Block* nb = NewBlock(s.size() + tail_len);
    std::memcpy(nb->data(), s.data(), s.size());
    std::memcpy(nb->data() + s.size(), pos, tail_len);
    nb->used = s.size() + tail_len;
    b->used -= tail_len;
    block_pending_ += s.size();  // the tail moved, it did not grow
    blocks_.insert(it + 1, nb);
    return;
  }
}

int ReplyBuffer::Gather(iovec* iov, int max) const {
  int n = 0;
  if (send_ > sstart_ && n < max) {
    iov[n].iov_base = static_ + sstart_;
    iov[n].iov_len = send_ - sstart_;
    ++n;
  }
  for (const Block* b : blocks_) {
    if (n >= max) break;
    if (b->used == b->start) continue;
    iov[n].iov_base = const_cast<char*>(b->data() + b->start);
    iov[n].iov_len = b->used - b->start;
    ++n;
  }
  return n;
}

void ReplyBuffer::Consume(size_t n) {
  size_t in_static = send_ - sstart_;
  size_t k = std::min(n, in_static);
  sstart_ += k;
  n -= k;
  if (sstart_ == send_) sstart_ = send_ = 0;
  while (!blocks_.empty()) {
    Block* b = blocks_.front();
    size_t len = b->used - b->start;
    if (n < len) {
      b->start += n;
      block_pending_ -= n;
      return;
    }
    n -= len;
    FreeBlock(b);
    blocks_.pop_front();
  }
}

void ReplyBuffer::TruncateTo(size_t keep) {
  const size_t in_static = send_ - sstart_;
  size_t kept_blocks = 0;
  if (keep < in_static) {
    send_ = sstart_ + keep;
  } else {
    size_t off = keep - in_static;
    while (kept_blocks < blocks_.size() && off > 0) {
      Block* b = blocks_[kept_blocks];
      const size_t len = b->used - b->start;
      ++kept_blocks;
      if (off <= len) {
        block_pending_ -= len - off;
        b->used = b->start + off;
        break;
      }
      off -= len;
    }
  }
  while (blocks_.size() > kept_blocks) {
    FreeBlock(blocks_.back());
    blocks_.pop_back();
  }
}

void ReplyBuffer::Clear() {
  sstart_ = send_ = 0;
  for (Block* b : blocks_) FreeBlock(b);
  blocks_.clear();
}

std::string ReplyBuffer::ToString() const {
  std::string out;
  if (send_ > sstart_) out.assign(static_ + sstart_, send_ - sstart_);
  for (const Block* b : blocks_) out.append(b->data() + b->start, b->used - b->start);
  return out;
}

}  // namespace redistp
