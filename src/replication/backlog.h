// The replication backlog: the last `repl-backlog-size` bytes of the replication stream, so a
// replica whose link dropped can continue from its offset (PSYNC) instead of a full sync.
//
// Model. A ring of fixed capacity holding the most recent bytes of the stream. Offsets are the
// stream's (Replication::master_repl_offset): the byte at offset `o` is the o-th byte of the
// stream since the replication id began, counting from 1 as Redis does, so the backlog holds
// the bytes [first_offset(), first_offset() + histlen()) and a replica at offset R (it applied
// everything up to R) asks for R + 1. A new backlog starts empty at master_repl_offset + 1.
// Resizing (CONFIG SET repl-backlog-size) keeps the newest bytes that fit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace redistp {

// A scratch buffer of the stream (an encoded record, a transaction held for its EXEC) after
// use: emptied, and its memory given back when one big value made it bigger than kKeepBuffer,
// so a single 8 MB write does not leave 8-16 MB held for the life of the server.
inline constexpr size_t kKeepBuffer = 64 * 1024;
inline void ReleaseBuffer(std::string* buf) {
  if (buf->capacity() > kKeepBuffer) {
    std::string().swap(*buf);
  } else {
    buf->clear();
  }
}

class ReplBacklog {
 public:
  // An empty backlog of `capacity` bytes (at least 1) whose next byte is `next_offset`.
  ReplBacklog(size_t capacity, int64_t next_offset);

  // Appends stream bytes, dropping the oldest when full.
  void Append(std::string_view bytes);
  // Changes the capacity, keeping the newest bytes that fit.
  void Resize(size_t capacity);

  size_t capacity() const { return buf_.size(); }
  size_t histlen() const { return len_; }
  // Offset the next byte appended will have.
  int64_t next_offset() const { return next_offset_; }
  // Offset of the oldest byte held (the next byte's offset when empty).
  int64_t first_offset() const { return next_offset_ - static_cast<int64_t>(len_); }

  // Whether a replica asking for `offset` (its next byte) can continue from here: the bytes
  // from `offset` to the present are all held (offset == present + 1 asks for nothing).
  bool Covers(int64_t offset) const { return offset >= first_offset() && offset <= next_offset_; }
  // The bytes from `offset` to the present (Covers(offset) must hold), appended to `out`.
  void CopyFrom(int64_t offset, std::string* out) const;

 private:
  std::string buf_;  // the ring
  size_t head_ = 0;  // where the next byte goes
  size_t len_ = 0;   // bytes held
  int64_t next_offset_;
};

}  // namespace redistp
