// RESP values as the differential tester sees them, and one blocking connection per server.
//
// Model. The tester compares what two servers put on the wire, so a Value keeps every
// distinction a client could observe: RESP2's null bulk (`$-1`) and null array (`*-1`) are
// different kinds, and RESP3's null, double, boolean, big number, verbatim string, map, set,
// push and attribute each have their own kind. Debian's hiredis (0.14) parses RESP2 only, so the
// reader here is our own; hiredis connects the socket and encodes requests.
//
// A Connection is strictly lock-step: Send() writes one request, Receive() reads exactly one
// top-level reply (attributes are folded into the reply they precede). Every read has a deadline,
// so a server that never answers becomes a visible "no reply" value instead of a hang. A lost
// or timed-out connection is marked dead and must be reopened by its owner.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct redisContext;

namespace difftest {

struct Value {
  enum class Kind {
    kStatus,     // +
    kError,      // -
    kInteger,    // :
    kBulk,       // $
    kNilBulk,    // $-1
    kArray,      // *
    kNilArray,   // *-1
    kNull,       // _
    kDouble,     // ,
    kBoolean,    // #
    kBigNumber,  // (
    kVerbatim,   // =
    kMap,        // %
    kSet,        // ~
    kPush,       // >
    kLost,       // not a server reply: the connection died or timed out (str says which)
  };
  Kind kind = Kind::kNull;
  std::string str;  // text of status, error, bulk, double, boolean, big number, verbatim, lost
  long long integer = 0;
  std::vector<Value> elements;    // arrays, sets, pushes; maps hold key, value, key, value, ...
  std::vector<Value> attributes;  // a RESP3 attribute map sent before this value, flattened

  bool IsError() const { return kind == Kind::kError; }
  bool IsAggregate() const {
    return kind == Kind::kArray || kind == Kind::kMap || kind == Kind::kSet || kind == Kind::kPush;
  }
  // An unambiguous one-line rendering: `+OK`, `-ERR x`, `:1`, `$"a\x00"`, `$nil`, `*[..]`,
  // `*nil`, `_`, `,1.5`, `#t`, `(123`, `=txt:..`, `%{k: v}`, `~{..}`, `>[..]`, `<lost: why>`.
  std::string Render() const;
  // The kind's name as a short tag, for shape comparisons ("bulk", "map", ...).
  std::string_view KindName() const;
};

// Escapes bytes for display: printable ASCII as is, `"` and `\` escaped, the rest as \xHH.
std::string Quote(std::string_view bytes);

// Incremental RESP2/RESP3 parser over a byte buffer.
class Parser {
 public:
  void Feed(const char* data, size_t len) { buf_.append(data, len); }
  // Parses one complete top-level value from the buffer into `out`. Returns 1 when a value was
  // produced, 0 when more bytes are needed, -1 on a protocol error (error() says what).
  int Next(Value& out);
  const std::string& error() const { return error_; }
  void Reset() {
    buf_.clear();
    pos_ = 0;
    error_.clear();
  }

 private:
  // Parses one value at pos_; the same 1/0/-1 contract. pos_ advances only on success.
  int ParseAt(size_t& pos, Value& out, int depth);
  std::string buf_;
  size_t pos_ = 0;
  std::string error_;
};

class Connection {
 public:
  Connection() = default;
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Connects to 127.0.0.1:port. Returns false (and error() says why) on failure.
  bool Open(int port);
  void Close();
  bool alive() const { return ctx_ != nullptr; }
  const std::string& error() const { return error_; }

  // Writes one request. On failure the connection is closed.
  bool Send(const std::vector<std::string>& argv);
  // Reads exactly one reply, waiting at most `timeout`. A failure (closed, timed out, protocol
  // error) closes the connection and yields a kLost value describing it.
  Value Receive(std::chrono::milliseconds timeout);
  // Send + Receive.
  Value Call(const std::vector<std::string>& argv,
             std::chrono::milliseconds timeout = std::chrono::seconds(10));

 private:
  redisContext* ctx_ = nullptr;
  Parser parser_;
  std::string error_;
};

}  // namespace difftest
