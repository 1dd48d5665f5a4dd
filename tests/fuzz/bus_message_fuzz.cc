// libFuzzer harness for the cluster bus codec (src/cluster/bus_message).
//
// The input is one frame as a peer on the cluster bus might send it: any bytes at all. Beyond
// "no crash, no sanitizer report", two properties must hold:
//  1. The frame length a reader learns from the first 8 bytes agrees with the decoder: a frame
//     that decodes has BusFrameLength equal to its size.
//  2. Decoding is exact: a frame that decodes re-encodes to the very same bytes, and to
//     BusEncodedSize of them. This is what lets the codec be trusted as Redis 7.0's wire image
//     (nothing is dropped or normalised on the way through).
// A violated property aborts (libFuzzer reports it as a crash with the input saved).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cluster/bus_message.h"

namespace {

[[noreturn]] void Violation(const char* what) {
  std::fprintf(stderr, "bus_message_fuzz: property violated: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view frame(reinterpret_cast<const char*>(data), size);
  redistp::Result<redistp::BusMessage> m = redistp::DecodeBusMessage(frame);
  if (!m.ok()) return 0;
  redistp::Result<uint32_t> len = redistp::BusFrameLength(frame.substr(0, 8));
  if (!len.ok() || len.value() != size) Violation("frame length disagrees with the decoder");
  if (redistp::BusEncodedSize(m.value()) != size) Violation("encoded size differs");
  if (redistp::EncodeBusMessage(m.value()) != frame) Violation("re-encoding differs");
  return 0;
}
