// RequestParser: turns the bytes of a client's query buffer into commands, in place.
//
// Two request forms, as in Redis:
//  - multibulk (RESP arrays of bulk strings): "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
//  - inline: a text line split on spaces with Redis's quoting rules ("a b" 'c' "\x41").
// Arguments are string_views into the query buffer: no copy, no allocation per argument. They
// stay valid until the caller consumes the command's bytes. A partially received command is
// resumed where it stopped (the parser remembers the offsets it already parsed), so a huge
// argument arriving in many reads is scanned once. When a big bulk's length is known, the
// parser tells the caller how many bytes it still needs so the read can go straight into a
// buffer of the right size.
//
// Protocol errors carry Redis's exact text; the caller replies with it and closes the client
// after the reply, as Redis does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace redistp {

struct ParserLimits {
  int64_t max_bulk_len = 512LL * 1024 * 1024;  // proto-max-bulk-len
  bool authenticated = true;                   // stricter limits before AUTH
};

class RequestParser {
 public:
  enum class Status { kNeedMore, kCommand, kEmpty, kError };

  // Parses one request from `buf`. On kCommand, args() holds the arguments and consumed() the
  // number of bytes it occupied. kEmpty means bytes were consumed (an empty inline line or a
  // "*0"/"*-1" header) but no command results. On kError, error() holds the text.
  Status Parse(std::string_view buf, const ParserLimits& limits);

  const std::vector<std::string_view>& args() const { return args_; }
  size_t consumed() const { return consumed_; }
  const std::string& error() const { return error_; }
  // Bytes still needed to complete the bulk argument being read (0 if unknown / not in a bulk).
  size_t bulk_bytes_missing(size_t buffered) const;
  // Bytes at the start of the buffer already parsed into the command being received (its
  // header and its complete arguments; 0 between commands). Redis moves such arguments out of
  // the query buffer, so they do not count against client-query-buffer-limit.
  size_t parsed_bytes() const { return multibulk_len_ > 0 ? pos_ : 0; }
  // Resets state after the caller consumed a command (or on error).
  void Reset();

 private:
  Status ParseInline(std::string_view buf);
  Status ParseMultibulk(std::string_view buf, const ParserLimits& limits);
  Status Fail(std::string_view text);

  // Multibulk progress, as offsets relative to the start of the request.
  int64_t multibulk_len_ = 0;  // 0: header not parsed yet
  int64_t bulk_len_ = -1;      // -1: bulk header not parsed yet
  size_t pos_ = 0;
  std::vector<std::pair<size_t, size_t>> spans_;  // (offset, length) of parsed arguments

  std::vector<std::string_view> args_;
  std::vector<std::string> inline_storage_;  // unquoted inline arguments
  size_t consumed_ = 0;
  std::string error_;
};

// Splits an inline request line with Redis's quoting rules. Returns false on unbalanced quotes.
bool SplitInlineArgs(std::string_view line, std::vector<std::string>* out);

}  // namespace redistp
