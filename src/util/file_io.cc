// See file_io.h.
#include "util/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace redistp {

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

int FsyncDirectory(const std::string& dir, bool* open_failed) {
  if (open_failed != nullptr) *open_failed = false;
  const int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) {
    if (open_failed != nullptr) *open_failed = true;
    return errno;
  }
  const int rc = fsync(dfd);
  const int e = errno;
  close(dfd);
  return rc == 0 ? 0 : e;
}

}  // namespace redistp
