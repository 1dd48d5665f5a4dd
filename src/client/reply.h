// Reply: one RESP2 reply as a plain C++ value, and the two codecs the client needs — RESP
// request encoding and a reply reader built on hiredis's redisReader.
//
// Model. The library speaks RESP2 only (Debian's hiredis 0.14 parses nothing newer), so a reply
// is one of six shapes: status, error, integer, bulk string, nil, array of replies. Reply owns
// its strings and children by value; there is no reference counting and no hiredis type in this
// header. ReplyReader feeds bytes to hiredis with our own object functions, so hiredis builds
// Reply trees directly (children are constructed in place inside their parent's vector, which is
// sized once by the array header) and hands back one complete top-level Reply at a time.
//
// Replies the library makes itself (connection lost, refused command, timeout) are errors with
// `local` set, so a program can tell them from the server's own errors.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace redistp::client {

struct Reply {
  enum class Type { kNil, kStatus, kError, kInteger, kString, kArray };

  Type type = Type::kNil;
  std::string str;              // kStatus, kError, kString
  long long integer = 0;        // kInteger
  std::vector<Reply> elements;  // kArray
  bool local = false;           // an error produced by the library, not by the server

  static Reply Status(std::string s);
  static Reply Error(std::string s);
  static Reply LocalError(std::string s);
  static Reply Integer(long long v);
  static Reply String(std::string s);
  static Reply Nil();
  static Reply Array(std::vector<Reply> elements);

  bool is_error() const { return type == Type::kError; }
  bool is_nil() const { return type == Type::kNil; }
  bool is_array() const { return type == Type::kArray; }
  bool is_integer() const { return type == Type::kInteger; }
  // True for a status or bulk string equal to `s`.
  bool Is(std::string_view s) const;

  // A compact, unambiguous rendering for logs and test failures: `"bulk"`, `+status`, `-error`,
  // `:12`, `(nil)`, `[a, b]`.
  std::string ToString() const;

  friend bool operator==(const Reply& a, const Reply& b);
};

// Appends `argv` to `out` as one RESP request (an array of bulk strings).
void AppendCommand(std::string& out, const std::vector<std::string>& argv);

// Incremental parser for a byte stream of RESP2 replies. Not copyable; one per connection.
class ReplyReader {
 public:
  ReplyReader();
  ~ReplyReader();
  ReplyReader(const ReplyReader&) = delete;
  ReplyReader& operator=(const ReplyReader&) = delete;

  // Buffers bytes read from the socket.
  void Feed(const char* data, size_t len);
  // The next complete top-level reply, or nullopt when more bytes are needed. On a protocol
  // error returns nullopt and sets error() (the stream cannot continue after that).
  std::optional<Reply> Next();
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string error_;
};

}  // namespace redistp::client
