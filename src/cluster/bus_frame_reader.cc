// The bus stream splitter (see bus_frame_reader.h). Each Feed consumes its input piece by piece:
// first up to the 8 header bytes, then, once the length is known, up to the frame's end, so
// every byte is copied once into the frame it belongs to and the loop ends with the input.
#include "cluster/bus_frame_reader.h"

#include <algorithm>

#include "cluster/bus_message.h"

namespace redistp {

Status BusFrameReader::Feed(std::string_view bytes, std::vector<std::string>* frames) {
  if (!error_.ok()) return error_;
  while (!bytes.empty()) {
    if (need_ == 0) {
      const size_t take = std::min(bytes.size(), 8 - partial_.size());
      partial_.append(bytes.substr(0, take));
      bytes.remove_prefix(take);
      if (partial_.size() < 8) break;
      Result<uint32_t> len = BusFrameLength(partial_);
      if (!len.ok()) {
        error_ = len.status();
        partial_.clear();
        return error_;
      }
      need_ = len.value();
    }
    const size_t take = std::min(bytes.size(), need_ - partial_.size());
    partial_.append(bytes.substr(0, take));
    bytes.remove_prefix(take);
    if (partial_.size() == need_) {
      frames->push_back(std::move(partial_));
      partial_.clear();
      need_ = 0;
    }
  }
  return Status::Ok();
}

}  // namespace redistp
