// ReplyBuilder: the only code that knows RESP2 from RESP3 when replying.
//
// Handlers describe replies with typed calls (Int, Bulk, Null, Map, Double, ...); the builder
// writes the right frames into the client's reply buffer for the protocol the client chose with
// HELLO. RESP2 degrades RESP3 types the way Redis does: maps become flat arrays of 2N items,
// sets and pushes become arrays, doubles become bulk strings, booleans become integers 1/0 and
// the single RESP3 null becomes $-1 (or *-1 for NullArray()).
//
// Deferred lengths: when the element count is known only after producing the elements, call
// DeferLen() first and SetDeferredLen() afterwards; the header is inserted at the saved offset.
//
// Suppression (CLIENT REPLY OFF/SKIP): when disabled the builder drops everything written,
// except inside a PushScope: a push is not a reply, and Redis 7.0 delivers pushes (Pub/Sub
// confirmations and messages, invalidations, WATCHEX events) whatever CLIENT REPLY says.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "util/reply_buffer.h"

namespace redistp {

class ReplyBuilder {
 public:
  explicit ReplyBuilder(ReplyBuffer* out) : out_(out) {}

  void SetResp(int version) { resp_ = version; }
  int resp() const { return resp_; }
  void SetEnabled(bool enabled) { enabled_ = enabled; }
  bool enabled() const { return enabled_; }

  // Held around a push frame that a command writes as (part of) its own reply — a Pub/Sub
  // (un)subscribe confirmation, which inside EXEC is an element of EXEC's reply: the frame
  // gets through while CLIENT REPLY OFF/SKIP suppresses the replies around it. (Pushes the
  // server sends on its own go through Server::Push, which never consults suppression.)
  class PushScope {
   public:
    explicit PushScope(ReplyBuilder& rb) : rb_(rb), was_enabled_(rb.enabled_) {
      rb.enabled_ = true;
    }
    ~PushScope() { rb_.enabled_ = was_enabled_; }
    PushScope(const PushScope&) = delete;
    PushScope& operator=(const PushScope&) = delete;

   private:
    ReplyBuilder& rb_;
    bool was_enabled_;
  };
  // Counts errors written since the last call; the dispatcher uses it for stats.
  uint64_t errors_written() const { return errors_written_; }
  // Of those, the errors already counted in the error statistics where they arose (a script
  // replying the error a command inside it gave): the dispatcher leaves them out of errorstats.
  uint64_t errors_uncounted() const { return errors_uncounted_; }
  // The prefix ("ERR", "WRONGTYPE") of the last error written; for errorstats.
  std::string_view last_error_prefix() const { return {last_error_prefix_, last_error_len_}; }

  void Ok() { Raw("+OK\r\n"); }
  void Simple(std::string_view s);
  // `msg` is the full error text, e.g. "ERR syntax error" (no leading '-', no CRLF).
  void Error(std::string_view msg);
  // An error reply that the error statistics already counted (see errors_uncounted).
  void ErrorCounted(std::string_view msg) {
    ++errors_uncounted_;
    Error(msg);
  }
  void Int(int64_t v);
  void Bulk(std::string_view s);
  void Null();       // RESP2 $-1, RESP3 _
  void NullArray();  // RESP2 *-1, RESP3 _
  void Array(size_t n) { Header('*', n); }
  void Map(size_t pairs);
  void Set(size_t n) { Header(resp_ >= 3 ? '~' : '*', n); }
  void Push(size_t n) { Header(resp_ >= 3 ? '>' : '*', n); }
  void Double(double v);
  void Bool(bool v);
  void Verbatim(std::string_view text, std::string_view format = "txt");
  void BigNumber(std::string_view digits);
  void EmptyArray() { Raw("*0\r\n"); }

  // Deferred header support. Kinds: '*' array, '%' map (n = pairs), '~' set.
  size_t DeferLen();
  void SetDeferredLen(size_t handle, char kind, size_t n);

  // A point to come back to: Rollback(Mark()) drops everything written after it (a reply that
  // failed half-way, as a script's reply conversion can for lack of memory).
  size_t Mark() const { return out_->Readable(); }
  void Rollback(size_t mark) { out_->TruncateTo(mark); }

  // Bytes copied verbatim (pre-encoded frames).
  void Raw(std::string_view bytes) {
    if (enabled_) out_->Append(bytes);
  }
  // A shared frame's bytes from offset `from` on, referenced rather than copied (a push
  // encoded once for many receivers: protocol/push_frame.h).
  void Shared(const SharedFrame& frame, size_t from = 0) {
    if (enabled_) out_->AppendShared(frame, from);
  }

 private:
  void Header(char kind, size_t n);

  ReplyBuffer* out_;
  int resp_ = 2;
  bool enabled_ = true;
  uint64_t errors_written_ = 0;
  uint64_t errors_uncounted_ = 0;
  char last_error_prefix_[32] = {};
  size_t last_error_len_ = 0;
};

}  // namespace redistp
