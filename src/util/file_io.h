// Small POSIX file helpers shared by the code that writes files the server must find again
// after a crash (the RDB, the AOF manifest, the fence mark, CONFIG REWRITE): a write that
// finishes the whole buffer, and the fsync of a directory that makes a rename in it durable.
#pragma once

#include <string>
#include <string_view>

namespace redistp {

// write(2) until all of `data` is written, retrying on EINTR; false with errno set otherwise.
bool WriteAll(int fd, std::string_view data);

// fsync(2) of the directory `dir`, so that a file renamed into it stays after a crash. Returns 0,
// or the errno of the failed open (then `*open_failed` is set, if given) or of the fsync.
int FsyncDirectory(const std::string& dir, bool* open_failed = nullptr);

}  // namespace redistp
