// Test helper: what a ReplyBuffer would write, read through Gather (its iovec view), so a test
// checks the bytes as the socket would get them rather than through ToString.
#pragma once

#include <sys/uio.h>

#include <string>

#include "util/reply_buffer.h"

namespace redistp {

inline std::string Gathered(const ReplyBuffer& b) {
  iovec iov[4096];
  int n = b.Gather(iov, 4096);
  std::string out;
  for (int i = 0; i < n; ++i) out.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
  return out;
}

// The same after the first `skip` pending bytes (GatherFrom, as a write that resumes does).
inline std::string GatheredFrom(const ReplyBuffer& b, size_t skip) {
  iovec iov[4096];
  int n = b.GatherFrom(skip, iov, 4096);
  std::string out;
  for (int i = 0; i < n; ++i) out.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
  return out;
}

}  // namespace redistp
