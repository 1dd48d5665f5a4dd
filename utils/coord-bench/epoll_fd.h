// EpollFd: an epoll descriptor closed when the benchmark ends, whichever way it ends.
#pragma once

#include <sys/epoll.h>
#include <unistd.h>

namespace coordbench {

class EpollFd {
 public:
  EpollFd() : fd_(epoll_create1(EPOLL_CLOEXEC)) {}
  ~EpollFd() {
    if (fd_ >= 0) close(fd_);
  }
  EpollFd(const EpollFd&) = delete;
  EpollFd& operator=(const EpollFd&) = delete;
  // The descriptor, or -1 when epoll_create1 failed.
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace coordbench
