// A growable contiguous byte buffer with a consumed prefix, used for a client's query buffer
// (bytes read from the socket, parsed in place) and reply buffer (bytes waiting to be written).
//
// Layout:   [ consumed | readable ........ | writable ............ ]
//           0          rpos_              wpos_                   cap_
// Readable bytes are [rpos_, wpos_). Appends go at wpos_. Compact() moves the readable bytes to
// the front when the consumed prefix is large. Memory comes from malloc (jemalloc).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>
#include <utility>

namespace redistp {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  ~ByteBuffer() { std::free(data_); }
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;

  const char* ReadPtr() const { return data_ + rpos_; }
  size_t Readable() const { return wpos_ - rpos_; }
  std::string_view View() const { return {data_ + rpos_, wpos_ - rpos_}; }
  void Consume(size_t n) {
    rpos_ += n;
    if (rpos_ == wpos_) rpos_ = wpos_ = 0;
  }
  void Clear() { rpos_ = wpos_ = 0; }

  char* WritePtr() { return data_ + wpos_; }
  size_t Writable() const { return cap_ - wpos_; }
  void Produced(size_t n) { wpos_ += n; }
  // Makes room for at least n more bytes at WritePtr(), compacting or growing as needed.
  void Reserve(size_t n) {
    if (cap_ - wpos_ >= n) return;
    if (rpos_ > 0 && cap_ - (wpos_ - rpos_) >= n && rpos_ >= (wpos_ - rpos_)) {
      Compact();
      return;
    }
    size_t need = wpos_ - rpos_ + n;
    size_t new_cap = cap_ < 1024 ? 1024 : cap_;
    while (new_cap < need) new_cap *= 2;
    if (rpos_ > 0) Compact();
    char* p = static_cast<char*>(std::realloc(data_, new_cap));
    if (p == nullptr) throw std::bad_alloc();
    data_ = p;
    cap_ = new_cap;
  }
  // Makes room for exactly n more bytes (no doubling): for the rest of a big argument whose
  // length is known, so a 100 MB value costs 100 MB of buffer, not up to twice that.
  void ReserveExact(size_t n) {
    if (cap_ - wpos_ >= n) return;
    Compact();
    if (cap_ - wpos_ >= n) return;
    char* p = static_cast<char*>(std::realloc(data_, wpos_ + n));
    if (p == nullptr) throw std::bad_alloc();
    data_ = p;
    cap_ = wpos_ + n;
  }
  // Frees the storage of an empty buffer (an idle connection's query buffer); the next
  // Reserve allocates again. Does nothing while bytes are readable.
  void Release() {
    if (wpos_ != rpos_ || data_ == nullptr) return;
    std::free(data_);
    data_ = nullptr;
    cap_ = rpos_ = wpos_ = 0;
  }
  void Compact() {
    if (rpos_ == 0) return;
    std::memmove(data_, data_ + rpos_, wpos_ - rpos_);
    wpos_ -= rpos_;
    rpos_ = 0;
  }
  void Append(const char* p, size_t n) {
    Reserve(n);
    std::memcpy(data_ + wpos_, p, n);
    wpos_ += n;
  }
  void Append(std::string_view s) { Append(s.data(), s.size()); }
  void Append(char c) {
    Reserve(1);
    data_[wpos_++] = c;
  }
  // Inserts bytes at absolute readable offset `at` (relative to ReadPtr()), shifting the tail.
  void InsertAt(size_t at, std::string_view s) {
    Reserve(s.size());
    char* base = data_ + rpos_;
    std::memmove(base + at + s.size(), base + at, wpos_ - rpos_ - at);
    std::memcpy(base + at, s.data(), s.size());
    wpos_ += s.size();
  }
  size_t Capacity() const { return cap_; }
  // Gives back the room beyond max(cap, Readable()) bytes (the readable bytes move to the
  // front); 0 on an empty buffer frees the storage. Never grows the buffer.
  void ShrinkTo(size_t cap) {
    const size_t keep = std::max(cap, wpos_ - rpos_);
    if (keep >= cap_) return;
    if (keep == 0) {
      std::free(data_);
      data_ = nullptr;
      cap_ = rpos_ = wpos_ = 0;
      return;
    }
    Compact();
    char* p = static_cast<char*>(std::realloc(data_, keep));
    if (p == nullptr) return;  // the bigger buffer is still valid
    data_ = p;
    cap_ = keep;
  }
  // Frees the allocation when empty and larger than `keep` bytes (idle clients give memory back).
  void ShrinkIfIdle(size_t keep) {
    if (Readable() == 0 && cap_ > keep) {
      std::free(data_);
      data_ = nullptr;
      cap_ = rpos_ = wpos_ = 0;
    }
  }

 private:
  char* data_ = nullptr;
  size_t cap_ = 0;
  size_t rpos_ = 0;
  size_t wpos_ = 0;
};

}  // namespace redistp
