#include "server/fence_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "server/config.h"
#include "util/file_io.h"
#include "util/numbers.h"

namespace redistp {
namespace {

constexpr std::string_view kPrefix = "redistp-fence-mark:";
constexpr size_t kMaxFileBytes = 256;  // a mark line is < 50 bytes; more is not our file

// "<what> '<path>': <strerror(errno)>".
std::string Failure(const char* what, const std::string& path) {
  return std::string(what) + " '" + path + "': " + std::strerror(errno);
}

}  // namespace

Result<uint64_t> FenceFile::Read(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return uint64_t{0};
    return Status::Error(Failure("Can't open the fencing reservation file", path));
  }
  char buf[kMaxFileBytes + 1];
  size_t len = 0;
  bool read_error = false;
  while (len < sizeof(buf)) {
    ssize_t n = read(fd, buf + len, sizeof(buf) - len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) read_error = true;
    if (n <= 0) break;
    len += static_cast<size_t>(n);
  }
  if (read_error) {
    Status s = Status::Error(Failure("Can't read the fencing reservation file", path));
    close(fd);
    return s;
  }
  close(fd);
  std::string_view text(buf, len);
  int64_t mark = 0;
  if (len > kMaxFileBytes || !text.starts_with(kPrefix) || !text.ends_with('\n') ||
      !ParseInt64(text.substr(kPrefix.size(), text.size() - kPrefix.size() - 1), &mark) ||
      mark < 0) {
    return Status::Error("The fencing reservation file '" + path +
                         "' is damaged (expected one line 'redistp-fence-mark:<number>')");
  }
  return static_cast<uint64_t>(mark);
}

Status FenceFile::Persist(uint64_t mark) {
  const std::string& path = config_->tp_fence_file;
  const std::string tmp = path + ".tmp";
  std::string line(kPrefix);
  line.append(std::to_string(mark)).push_back('\n');
  std::string error;
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = Failure("can't create", tmp);
  } else {
    if (!WriteAll(fd, line)) {
      error = Failure("can't write", tmp);
    } else if (fsync(fd) != 0) {
      error = Failure("can't fsync", tmp);
    }
    if (close(fd) != 0 && error.empty()) error = Failure("can't close", tmp);
    if (error.empty() && rename(tmp.c_str(), path.c_str()) != 0) {
      error = Failure("can't rename to", path);
    }
    if (!error.empty()) unlink(tmp.c_str());
  }
  if (error.empty()) {
    // The rename is durable once the directory is: fsync the working directory (`dir`).
    if (const int e = FsyncDirectory("."); e != 0) {
      errno = e;
      error = Failure("can't fsync the directory of", path);
    }
  }
  if (!error.empty()) {
    if (!failing_) {
      log_->Log(LogLevel::kWarning,
                "Fencing tokens refused: the reservation could not be made durable (%s). Each "
                "FENCE request tries again.",
                error.c_str());
    }
    failing_ = true;
    return Status::Error(error);
  }
  if (failing_) {
    log_->Log(LogLevel::kWarning, "Fencing reservation written again: fencing tokens resume.");
  }
  failing_ = false;
  return Status::Ok();
}

}  // namespace redistp
