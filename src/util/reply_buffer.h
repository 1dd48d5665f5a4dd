// ReplyBuffer: the bytes a client still has to be sent, kept as Redis keeps them: a small
// per-client buffer first, then a list of pieces of fixed-size blocks.
//
// Layout:   static buffer [ consumed | pending ... ]        (1 KB .. 16 KB)
//           pieces        [ consumed | pending | free ] -> [ ... ] -> ...  (16 KB blocks, or
//                                                             one block as big as a bigger
//                                                             single append, or a shared frame)
// Order: the static buffer's pending bytes come first, then the pieces' in list order. While
// any piece exists, appends go to the last piece's block (or a new one), never back to the
// static buffer, so the order of replies is the order of appends. A block is freed as soon as
// it has been written out, so a backlog costs what it holds plus at most one partly filled
// block, never twice its size as a doubling buffer does.
//
// Shared frames. A piece is a view [start, end) of a block. A block is either owned (this
// buffer's alone; its last piece is appended to) or a SharedFrame: one immutable, refcounted
// allocation that any number of buffers reference, each through a piece of its own, so a push
// encoded once reaches many receivers without a copy per receiver (AppendShared). Each piece
// holds one reference; the block is freed with its last reference, whichever buffer drops it
// (written out, cleared, truncated away, or the connection gone mid-write). A shared block is
// never appended to, nor changed by InsertAt or TruncateTo (they split or shorten the piece).
//
// Accounting, as CLIENT LIST shows it and the output-buffer limits count it (Redis's names):
//   obl  = pending bytes in the static buffer, oll = number of pieces,
//   omem = bytes allocated for the blocks its pieces reference (an idle client, or one whose
//          replies fit the static buffer, has omem=0); a shared frame counts in full in each
//          buffer that references it, as Redis, which copies a message to each receiver,
//          counts it in each; rbs = static buffer size, rbp = its peak use.
// Sizing: a connection's static buffer starts at 16 KB and is resized by the clients cron from
// its peak use (CronResize), as Redis 7.0 sizes its per-client buffer; appends never grow it.
// Deferred lengths (a header known only after its elements) are inserted at an offset recorded
// earlier with Readable(); nothing may be consumed in between (replies are written only at the
// end of a loop turn, never in the middle of a command).
// Limit: an owner may install a check that is asked before each new block is taken or shared
// frame referenced (once per 16 KB or per big append, never per byte: the static buffer's fast
// path is untouched). When the check refuses, the buffer drops everything it holds and every
// later byte, so a reply far bigger than the limit is never held whole; the owner closes the
// connection soon after (refused() tells it), as Redis 7.0 marks such a client to be closed
// ASAP.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>

namespace redistp {

// A block of reply bytes: this header, then `cap` bytes of data. Owned by one ReplyBuffer
// (refs == 1, shared == false) or a SharedFrame's (shared == true: immutable, one reference
// per handle and per piece that views it).
struct ReplyBlock {
  size_t cap;
  size_t refs;
  bool shared;
  char* data() { return reinterpret_cast<char*>(this + 1); }
  const char* data() const { return reinterpret_cast<const char*>(this + 1); }
};

// An encoded frame shared by reference among many ReplyBuffers (ReplyBuffer::AppendShared):
// one allocation holding the bytes, freed when the last handle and the last buffer piece that
// references it are gone. Move-only handle; the bytes never change once made.
class SharedFrame {
 public:
  SharedFrame() = default;
  explicit SharedFrame(std::string_view bytes);
  ~SharedFrame() { Reset(); }
  SharedFrame(SharedFrame&& o) noexcept : block_(o.block_) { o.block_ = nullptr; }
  SharedFrame& operator=(SharedFrame&& o) noexcept {
    if (this != &o) {
      Reset();
      block_ = o.block_;
      o.block_ = nullptr;
    }
    return *this;
  }
  SharedFrame(const SharedFrame&) = delete;
  SharedFrame& operator=(const SharedFrame&) = delete;

  bool empty() const { return block_ == nullptr; }
  size_t size() const { return block_ == nullptr ? 0 : block_->cap; }
  std::string_view view() const { return {block_ ? block_->data() : "", size()}; }
  // References held: this handle plus every buffer piece viewing it (tests, diagnostics).
  size_t refs() const { return block_ == nullptr ? 0 : block_->refs; }
  // Drops this handle's reference (buffers that reference the frame keep it alive).
  void Reset();

 private:
  friend class ReplyBuffer;
  ReplyBlock* block_ = nullptr;
};

class ReplyBuffer {
 public:
  static constexpr size_t kStaticMin = 1024;
  static constexpr size_t kStaticMax = 16 * 1024;
  static constexpr size_t kBlockBytes = 16 * 1024;

  ReplyBuffer() = default;
  ~ReplyBuffer();
  ReplyBuffer(const ReplyBuffer&) = delete;
  ReplyBuffer& operator=(const ReplyBuffer&) = delete;

  // Asked before a new block is taken, with the bytes the blocks would then hold (omem);
  // returning true refuses them (see Limit above). `ctx` is handed back unchanged.
  using LimitCheck = bool (*)(void* ctx, size_t would_hold);
  void SetLimitCheck(LimitCheck check, void* ctx) {
    limit_check_ = check;
    limit_ctx_ = ctx;
  }
  // The limit check refused: nothing is held and every later append is dropped, for good
  // (the connection is closing).
  bool refused() const { return refused_; }

  // Appends bytes after everything pending.
  void Append(const char* p, size_t n) {
    if (n != 0 && pieces_.empty() && n <= static_cap_ - send_) {
      std::memcpy(static_ + send_, p, n);
      send_ += n;
      if (send_ - sstart_ > static_peak_) static_peak_ = send_ - sstart_;
      return;
    }
    AppendSlow(p, n);
  }
  void Append(std::string_view s) { Append(s.data(), s.size()); }
  void Append(char c) { Append(&c, 1); }
  // Appends everything `other` holds (it is left unchanged); its shared frames are referenced,
  // not copied.
  void Append(const ReplyBuffer& other);
  // Appends the bytes of `frame` from offset `from` on, by reference: one more piece viewing
  // the frame's block, no copy (the frame's size counts in block_bytes, omem). Asks the limit
  // check first, like a new block. `frame` must not be empty; `from` <= its size.
  void AppendShared(const SharedFrame& frame, size_t from = 0);
  // A size hint from callers that build a reply piece by piece; nothing to do here.
  void Reserve(size_t) {}
  // Inserts bytes at offset `at` of the pending bytes (0 = first pending byte).
  void InsertAt(size_t at, std::string_view s);

  // Drops the pending bytes after the first `keep` (appended after a Readable() of `keep`).
  void TruncateTo(size_t keep);

  size_t Readable() const { return (send_ - sstart_) + block_pending_; }
  // Fills up to `max` iovecs with the pending bytes from the front; returns how many.
  int Gather(iovec* iov, int max) const { return GatherFrom(0, iov, max); }
  // The same for the pending bytes after the first `skip` (skip <= Readable()).
  int GatherFrom(size_t skip, iovec* iov, int max) const;
  // Writes the pending bytes to socket `fd` (write(2), or writev(2) when they lie in several
  // pieces), up to kWriteIov pieces per call, until all are written or the socket is full, and
  // consumes nothing: *written says how many bytes went out, for the owner's Consume. Returns 0,
  // or the errno of a write that failed (EAGAIN ends the loop and EINTR retries; neither is a
  // failure). It only reads the buffer, so the buffers of different connections may be written
  // from different threads at once, shared frames included: a frame's bytes never change, and
  // its references are dropped only by Consume, on the owner's thread (util/io_threads.h).
  int WriteTo(int fd, size_t* written) const;
  static constexpr int kWriteIov = 64;  // 1 MB of 16 KB blocks per writev
  // Drops the first n pending bytes (written to the socket); frees emptied blocks.
  void Consume(size_t n);
  // Drops everything pending and frees every block (the static buffer is kept; a refused
  // buffer stays refused).
  void Clear();
  // The pending bytes as one string (tests, diagnostics).
  std::string ToString() const;
  // Gives a connection's buffer its Redis 7.0 shape: a static buffer of `cap` bytes from the
  // start, its peak counted as full (so the first resize looks at real use), and no growth on
  // demand afterwards: what does not fit goes to blocks, and only CronResize changes the size.
  // A buffer never preallocated (pushes held for later, pseudo-clients) keeps growing its
  // static buffer on demand up to kStaticMax and is never resized.
  void Preallocate(size_t cap);
  // The clients cron's step for a preallocated buffer, Redis 7.0's reply-buffer resizing: a
  // static buffer whose peak since the last reset is under half its size shrinks to the peak
  // plus one byte (at least kStaticMin); one used to the last byte doubles (at most
  // kStaticMax). The size is decided before `reset_peak` restarts the peak from the bytes
  // pending now, and applied only when `resize` is set and nothing is pending (a resize never
  // moves bytes still to be written). Returns whether the size changed.
  bool CronResize(bool resize, bool reset_peak);

  size_t static_used() const { return send_ - sstart_; }  // obl
  size_t static_capacity() const { return static_cap_; }  // rbs
  size_t static_peak() const { return static_peak_; }     // rbp
  size_t block_count() const { return pieces_.size(); }   // oll
  size_t block_bytes() const { return block_bytes_; }     // omem
  // Bytes allocated in all (tot-mem).
  size_t allocated() const { return static_cap_ + block_bytes_; }

 private:
  // A view [start, end) of a block; one reference to it.
  struct Piece {
    ReplyBlock* block;
    size_t start;
    size_t end;
    size_t len() const { return end - start; }
  };

  void AppendSlow(const char* p, size_t n);
  // Asks the limit check about blocks of `would_hold` bytes; on refusal enters the refused
  // state and returns true.
  bool Refuse(size_t would_hold);
  // A new owned block of at least `min_cap` bytes (counted in block_bytes_), not yet listed.
  ReplyBlock* NewBlock(size_t min_cap);
  // Adds a reference to `b` for a new piece (counted in block_bytes_).
  void RefBlock(ReplyBlock* b);
  // Drops piece `p`'s reference and its accounting; frees the block with its last reference.
  void DropPiece(const Piece& p);

  char* static_ = nullptr;
  size_t static_cap_ = 0;
  bool fixed_ = false;  // Preallocate()d: no growth on demand, CronResize sizes it
  size_t static_peak_ = 0;
  size_t sstart_ = 0;  // first pending byte of the static buffer
  size_t send_ = 0;    // end of its pending bytes
  std::deque<Piece> pieces_;
  size_t block_bytes_ = 0;    // sum of the cap of each piece's block
  size_t block_pending_ = 0;  // sum of the pieces' len()
  LimitCheck limit_check_ = nullptr;
  void* limit_ctx_ = nullptr;
  bool refused_ = false;
};

}  // namespace redistp
