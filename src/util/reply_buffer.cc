#include "util/reply_buffer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
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

SharedFrame::SharedFrame(std::string_view bytes) {
  void* mem = std::malloc(sizeof(ReplyBlock) + bytes.size());
  if (mem == nullptr) throw std::bad_alloc();
  block_ = new (mem) ReplyBlock{bytes.size(), 1, true};
  if (!bytes.empty()) std::memcpy(block_->data(), bytes.data(), bytes.size());
}

void SharedFrame::Reset() {
  if (block_ != nullptr && --block_->refs == 0) std::free(block_);
  block_ = nullptr;
}

ReplyBlock* ReplyBuffer::NewBlock(size_t min_cap) {
  size_t cap = std::max(kBlockBytes, min_cap);
  void* mem = std::malloc(sizeof(ReplyBlock) + cap);
  if (mem == nullptr) throw std::bad_alloc();
  ReplyBlock* b = new (mem) ReplyBlock{cap, 1, false};
  block_bytes_ += cap;
  return b;
}

void ReplyBuffer::RefBlock(ReplyBlock* b) {
  ++b->refs;
  block_bytes_ += b->cap;
}

void ReplyBuffer::DropPiece(const Piece& p) {
  block_bytes_ -= p.block->cap;
  block_pending_ -= p.len();
  if (--p.block->refs == 0) std::free(p.block);
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
  if (pieces_.empty()) {
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
  if (!pieces_.empty()) {
    // The last piece's block takes more only if it is this buffer's own and the piece ends
    // where the block's bytes end (a shared frame is never written to).
    Piece& tail = pieces_.back();
    if (!tail.block->shared) {
      size_t room = std::min(n, tail.block->cap - tail.end);
      std::memcpy(tail.block->data() + tail.end, p, room);
      tail.end += room;
      block_pending_ += room;
      p += room;
      n -= room;
    }
  }
  if (n == 0) return;
  // One new block for the rest: 16 KB, or exactly the size of a bigger remainder (a big value
  // is copied once, into a block of its own size), if the limit allows it.
  if (Refuse(block_bytes_ + std::max(kBlockBytes, n))) return;
  ReplyBlock* b = NewBlock(n);
  std::memcpy(b->data(), p, n);
  block_pending_ += n;
  pieces_.push_back(Piece{b, 0, n});
}

void ReplyBuffer::AppendShared(const SharedFrame& frame, size_t from) {
  ReplyBlock* b = frame.block_;
  if (refused_ || b == nullptr || from >= b->cap) return;
  if (Refuse(block_bytes_ + b->cap)) return;
  RefBlock(b);
  block_pending_ += b->cap - from;
  pieces_.push_back(Piece{b, from, b->cap});
}

void ReplyBuffer::Append(const ReplyBuffer& other) {
  if (other.send_ > other.sstart_) {
    Append(other.static_ + other.sstart_, other.send_ - other.sstart_);
  }
  for (const Piece& p : other.pieces_) {
    if (p.len() == 0) continue;
    if (!p.block->shared) {
      Append(p.block->data() + p.start, p.len());
      continue;
    }
    if (refused_ || Refuse(block_bytes_ + p.block->cap)) return;
    RefBlock(p.block);
    block_pending_ += p.len();
    pieces_.push_back(p);
  }
}

void ReplyBuffer::InsertAt(size_t at, std::string_view s) {
  if (refused_) return;
  if (at >= Readable()) {
    Append(s);
    return;
  }
  size_t in_static = send_ - sstart_;
  if (at < in_static) {
    if (pieces_.empty() && in_static + s.size() <= kStaticMax) {
      // Everything still fits the static buffer: open a gap there.
      std::string tail(static_ + sstart_ + at, in_static - at);
      send_ = sstart_ + at;
      Append(s);
      Append(tail);
      return;
    }
    // Move the static tail and the inserted bytes into a new first block.
    size_t tail_len = in_static - at;
    ReplyBlock* b = NewBlock(s.size() + tail_len);
    std::memcpy(b->data(), s.data(), s.size());
    std::memcpy(b->data() + s.size(), static_ + sstart_ + at, tail_len);
    block_pending_ += s.size() + tail_len;
    send_ = sstart_ + at;
    pieces_.push_front(Piece{b, 0, s.size() + tail_len});
    return;
  }
  size_t off = at - in_static;
  for (size_t i = 0; i < pieces_.size(); ++i) {
    Piece& p = pieces_[i];
    if (off >= p.len()) {
      off -= p.len();
      continue;
    }
    const size_t split = p.start + off;
    const size_t tail_len = p.end - split;
    if (!p.block->shared && p.block->cap - p.end >= s.size()) {
      char* pos = p.block->data() + split;
      std::memmove(pos + s.size(), pos, tail_len);
      std::memcpy(pos, s.data(), s.size());
      p.end += s.size();
      block_pending_ += s.size();
      return;
    }
    if (p.block->shared) {
      // A shared frame is never written: the piece ends at the split, the inserted bytes get a
      // block of their own, and a second piece views the frame's rest.
      Piece tail{p.block, split, p.end};
      p.end = split;
      RefBlock(tail.block);
      ReplyBlock* nb = NewBlock(s.size());
      std::memcpy(nb->data(), s.data(), s.size());
      block_pending_ += s.size();  // the tail moved to its own piece, it did not grow
      pieces_.insert(pieces_.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                     {Piece{nb, 0, s.size()}, tail});
      return;
    }
    // Split: this block keeps its head; a new block after it holds s and the tail.
    ReplyBlock* nb = NewBlock(s.size() + tail_len);
    std::memcpy(nb->data(), s.data(), s.size());
    std::memcpy(nb->data() + s.size(), p.block->data() + split, tail_len);
    p.end = split;
    block_pending_ += s.size();  // the tail moved, it did not grow
    pieces_.insert(pieces_.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                   Piece{nb, 0, s.size() + tail_len});
    return;
  }
}

int ReplyBuffer::GatherFrom(size_t skip, iovec* iov, int max) const {
  int n = 0;
  const size_t in_static = send_ - sstart_;
  if (skip < in_static) {
    if (n < max) {
      iov[n].iov_base = static_ + sstart_ + skip;
      iov[n].iov_len = in_static - skip;
      ++n;
    }
    skip = 0;
  } else {
    skip -= in_static;
  }
  for (const Piece& p : pieces_) {
    if (n >= max) break;
    if (skip >= p.len()) {
      skip -= p.len();
      continue;
    }
    iov[n].iov_base = const_cast<char*>(p.block->data() + p.start + skip);
    iov[n].iov_len = p.len() - skip;
    skip = 0;
    ++n;
  }
  return n;
}

int ReplyBuffer::WriteTo(int fd, size_t* written) const {
  size_t done = 0;
  const size_t total = Readable();
  int err = 0;
  while (done < total) {
    iovec iov[kWriteIov];
    int cnt = GatherFrom(done, iov, kWriteIov);
    // A reply held in one piece (the usual case) goes out with write(2), as Redis sends its
    // static buffer: the kernel then has no iovec array to copy in and check.
    ssize_t n = cnt == 1 ? write(fd, iov[0].iov_base, iov[0].iov_len) : writev(fd, iov, cnt);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) err = errno;
      break;
    }
    if (n == 0) break;  // not for a socket; never loop on it
    done += static_cast<size_t>(n);
  }
  *written = done;
  return err;
}

void ReplyBuffer::Consume(size_t n) {
  size_t in_static = send_ - sstart_;
  size_t k = std::min(n, in_static);
  sstart_ += k;
  n -= k;
  if (sstart_ == send_) sstart_ = send_ = 0;
  while (!pieces_.empty()) {
    Piece& p = pieces_.front();
    if (n < p.len()) {
      p.start += n;
      block_pending_ -= n;
      return;
    }
    n -= p.len();
    DropPiece(p);
    pieces_.pop_front();
  }
}

void ReplyBuffer::TruncateTo(size_t keep) {
  const size_t in_static = send_ - sstart_;
  size_t kept = 0;
  if (keep < in_static) {
    send_ = sstart_ + keep;
  } else {
    size_t off = keep - in_static;
    while (kept < pieces_.size() && off > 0) {
      Piece& p = pieces_[kept];
      ++kept;
      if (off <= p.len()) {
        // A shorter view: a shared frame's bytes stay as they are.
        block_pending_ -= p.len() - off;
        p.end = p.start + off;
        break;
      }
      off -= p.len();
    }
  }
  while (pieces_.size() > kept) {
    DropPiece(pieces_.back());
    pieces_.pop_back();
  }
}

void ReplyBuffer::Clear() {
  sstart_ = send_ = 0;
  for (const Piece& p : pieces_) DropPiece(p);
  pieces_.clear();
}

std::string ReplyBuffer::ToString() const {
  std::string out;
  if (send_ > sstart_) out.assign(static_ + sstart_, send_ - sstart_);
  for (const Piece& p : pieces_) out.append(p.block->data() + p.start, p.len());
  return out;
}

}  // namespace redistp
