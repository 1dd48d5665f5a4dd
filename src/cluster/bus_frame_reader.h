// Cutting a cluster bus connection's byte stream into frames.
//
// Model. A bus link delivers bytes in arbitrary pieces; frames are self-delimiting (the first 8
// bytes give the signature and the total length, see bus_message.h). The reader keeps the bytes
// of the frame in progress and hands out each frame as soon as it is whole. It never allocates
// ahead of the bytes that actually arrived, so a peer declaring a 4 GB frame costs only what it
// really sends. A bad signature, or a declared length below a header's, poisons the reader: the
// stream cannot be resynchronised, and the link must be closed (what a Redis 7.0 node does).
// Whether a whole frame is well formed for its type is DecodeBusMessage's question, not this.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace redistp {

class BusFrameReader {
 public:
  // Appends `bytes` to the stream and moves every frame it completes to the end of *frames, in
  // order. Returns an error (and keeps returning it) once the stream is not a bus stream.
  Status Feed(std::string_view bytes, std::vector<std::string>* frames);

  // Bytes held for the frame in progress (for the link's memory accounting).
  size_t buffered() const { return partial_.size(); }
  bool failed() const { return !error_.ok(); }

 private:
  std::string partial_;  // the frame in progress: fewer bytes than its length (or than 8)
  size_t need_ = 0;      // its total length once the first 8 bytes are in, else 0
  Status error_;
};

}  // namespace redistp
