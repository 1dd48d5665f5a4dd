// PushFrame: one server-initiated message (a WATCHEX event, a Pub/Sub message) encoded once
// for all its receivers.
//
// A push differs between the protocols only in its first byte: '*' (an array, RESP2) or '>'
// (a push, RESP3); the rest is the same bytes. So the frame is encoded once, in its RESP2 form,
// and a RESP3 receiver gets '>' followed by the same bytes from the second on
// (WriteTo). How a receiver gets the bytes depends on the frame's size:
//   - below kShareMin the frame is copied into each receiver's reply buffer: for a few dozen
//     bytes a copy costs less than a reference (a piece in the buffer's list, a reference
//     count, one more iovec to write and to consume); callgrind says which (docs/benchmarks.md);
//   - from kShareMin on, Seal makes it one SharedFrame (util/reply_buffer.h) that every
//     receiver's buffer references: no copy per receiver, and the memory is held once however
//     many receivers have not read it yet (each receiver's omem still counts it in full, as
//     Redis counts the copy it makes for each).
// Either way the bytes land in the receiver's output between two complete replies and go out
// with whatever else is pending in one writev (networking.cc).
//
// Use: Reset(), append the encoded frame with the Append* calls, Seal(), then WriteTo each
// receiver's builder (through Server::Push, which keeps the ordering rule). The object is
// reusable; Release() gives back a big frame's memory (the scratch string and the shared
// reference), after which only receivers still holding the frame keep it alive.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "protocol/reply_builder.h"
#include "util/reply_buffer.h"

namespace redistp {

class PushFrame {
 public:
  static constexpr size_t kShareMin = 1024;

  // Starts a new frame (the previous one's shared block stays with the receivers holding it).
  void Reset() {
    bytes_.clear();
    shared_.Reset();
  }
  // The RESP2 header of a push of `parts` elements ("*<parts>\r\n").
  void AppendHeader(size_t parts);
  // A whole bulk string "$<len>\r\n<s>\r\n".
  void AppendBulk(std::string_view s);
  // Bytes already encoded (the caller keeps them valid RESP).
  void AppendRaw(std::string_view s) { bytes_.append(s); }
  // Ends the frame: from kShareMin bytes on it becomes one shared block.
  void Seal();
  // Writes the frame in `rb`'s protocol (RESP3: '>' then the bytes after the first).
  void WriteTo(ReplyBuilder& rb) const {
    if (!shared_.empty()) {
      if (rb.resp() >= 3) rb.Raw(">");
      rb.Shared(shared_, rb.resp() >= 3 ? 1 : 0);
      return;
    }
    if (rb.resp() >= 3) {
      rb.Raw(">");
      rb.Raw(std::string_view(bytes_).substr(1));
    } else {
      rb.Raw(bytes_);
    }
  }
  // The RESP2 bytes of the frame (tests).
  std::string_view resp2() const { return shared_.empty() ? bytes_ : shared_.view(); }
  bool shared() const { return !shared_.empty(); }
  // Drops this object's hold on the frame and frees a big scratch string.
  void Release();

 private:
  std::string bytes_;
  SharedFrame shared_;
};

}  // namespace redistp
