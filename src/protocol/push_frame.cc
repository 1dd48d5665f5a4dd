// PushFrame: a push encoded once for many receivers (push_frame.h has the model).
#include "protocol/push_frame.h"

#include "util/numbers.h"

namespace redistp {
namespace {

// A scratch string above this capacity is freed after the frame (a big key or message must not
// keep its size for good).
constexpr size_t kKeepScratch = 4096;

void AppendLen(std::string& out, char type, size_t n) {
  char digits[kMaxInt64Chars + 1];
  out.push_back(type);
  out.append(digits, FormatInt64(static_cast<int64_t>(n), digits));
  out.append("\r\n");
}

}  // namespace

void PushFrame::AppendHeader(size_t parts) { AppendLen(bytes_, '*', parts); }

void PushFrame::AppendBulk(std::string_view s) {
  AppendLen(bytes_, '$', s.size());
  bytes_.append(s);
  bytes_.append("\r\n");
}

void PushFrame::Seal() {
  if (bytes_.size() < kShareMin) return;
  shared_ = SharedFrame(bytes_);
  bytes_.clear();
}

void PushFrame::Release() {
  shared_.Reset();
  if (bytes_.capacity() > kKeepScratch) {
    std::string().swap(bytes_);
  } else {
    bytes_.clear();
  }
}

}  // namespace redistp
