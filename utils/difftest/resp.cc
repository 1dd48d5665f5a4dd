// RESP2/RESP3 parsing, rendering, and the lock-step connection (see resp.h).
#include "resp.h"

#include <hiredis/hiredis.h>
#include <poll.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace difftest {

namespace {

// A script reply nests up to ~8000 levels (Lua's stack limit in the conversion) on both servers.
constexpr int kMaxDepth = 10000;

void RenderList(const std::vector<Value>& items, std::string& out, bool pairs) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += pairs && i % 2 == 1 ? ": " : ", ";
    out += items[i].Render();
  }
}

}  // namespace

std::string Quote(std::string_view bytes) {
  std::string out = "\"";
  for (unsigned char c : bytes) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  out += '"';
  return out;
}

// Quote() without the quotes: status and error lines are shown bare, their odd bytes escaped.
static std::string Printable(std::string_view s) {
  std::string q = Quote(s);
  return q.substr(1, q.size() - 2);
}

std::string_view Value::KindName() const {
  switch (kind) {
    case Kind::kStatus:
      return "status";
    case Kind::kError:
      return "error";
    case Kind::kInteger:
      return "integer";
    case Kind::kBulk:
      return "bulk";
    case Kind::kNilBulk:
      return "nil-bulk";
    case Kind::kArray:
      return "array";
    case Kind::kNilArray:
      return "nil-array";
    case Kind::kNull:
      return "null";
    case Kind::kDouble:
      return "double";
    case Kind::kBoolean:
      return "boolean";
    case Kind::kBigNumber:
      return "big-number";
    case Kind::kVerbatim:
      return "verbatim";
    case Kind::kMap:
      return "map";
    case Kind::kSet:
      return "set";
    case Kind::kPush:
      return "push";
    case Kind::kLost:
      return "lost";
  }
  return "?";
}

std::string Value::Render() const {
  std::string out;
  if (!attributes.empty()) {
    out += "|{";
    RenderList(attributes, out, true);
    out += "} ";
  }
  switch (kind) {
    case Kind::kStatus:
      out += "+" + Printable(str);
      break;
    case Kind::kError:
      out += "-" + Printable(str);
      break;
    case Kind::kInteger:
      out += ":" + std::to_string(integer);
      break;
    case Kind::kBulk:
      out += "$" + Quote(str);
      break;
    case Kind::kNilBulk:
      out += "$nil";
      break;
    case Kind::kNilArray:
      out += "*nil";
      break;
    case Kind::kNull:
      out += "_";
      break;
    case Kind::kDouble:
      out += "," + str;
      break;
    case Kind::kBoolean:
      out += "#" + str;
      break;
    case Kind::kBigNumber:
      out += "(" + str;
      break;
    case Kind::kVerbatim:
      out += "=" + Quote(str);
      break;
    case Kind::kLost:
      out += "<lost: " + str + ">";
      break;
    case Kind::kArray:
      out += "*[";
      RenderList(elements, out, false);
      out += "]";
      break;
    case Kind::kSet:
      out += "~{";
      RenderList(elements, out, false);
      out += "}";
      break;
    case Kind::kPush:
      out += ">[";
      RenderList(elements, out, false);
      out += "]";
      break;
    case Kind::kMap:
      out += "%{";
      RenderList(elements, out, true);
      out += "}";
      break;
  }
  return out;
}

int Parser::Next(Value& out) {
  size_t pos = pos_;
  out = Value{};
  int rc = ParseAt(pos, out, 0);
  if (rc == 1) {
    pos_ = pos;
    if (pos_ > 65536 && pos_ * 2 > buf_.size()) {
      buf_.erase(0, pos_);
      pos_ = 0;
    }
  }
  return rc;
}

// Reads the line starting at `pos` (without its type byte) into `line`; 0 when incomplete.
static int ReadLine(const std::string& buf, size_t& pos, std::string& line) {
  size_t end = buf.find("\r\n", pos);
  if (end == std::string::npos) return 0;
  line.assign(buf, pos, end - pos);
  pos = end + 2;
  return 1;
}

static bool ParseLength(const std::string& line, long long& n) {
  if (line.empty()) return false;
  char* end = nullptr;
  errno = 0;
  n = std::strtoll(line.c_str(), &end, 10);
  return errno == 0 && *end == '\0';
}

int Parser::ParseAt(size_t& pos, Value& out, int depth) {
  if (depth > kMaxDepth) {
    error_ = "nesting too deep";
    return -1;
  }
  if (pos >= buf_.size()) return 0;
  char type = buf_[pos];
  size_t p = pos + 1;
  std::string line;
  if (ReadLine(buf_, p, line) == 0) return 0;
  long long n = 0;
  switch (type) {
    case '+':
      out.kind = Value::Kind::kStatus;
      out.str = line;
      break;
    case '-':
      out.kind = Value::Kind::kError;
      out.str = line;
      break;
    case ',':
      out.kind = Value::Kind::kDouble;
      out.str = line;
      break;
    case '#':
      out.kind = Value::Kind::kBoolean;
      out.str = line;
      break;
    case '(':
      out.kind = Value::Kind::kBigNumber;
      out.str = line;
      break;
    case '_':
      out.kind = Value::Kind::kNull;
      break;
    case ':':
      if (!ParseLength(line, n)) {
        error_ = "bad integer " + Quote(line);
        return -1;
      }
      out.kind = Value::Kind::kInteger;
      out.integer = n;
      break;
    case '$':
    case '=':
    case '!': {
      if (!ParseLength(line, n) || n < -1) {
        error_ = "bad length " + Quote(line);
        return -1;
      }
      if (n == -1 && type == '$') {
        out.kind = Value::Kind::kNilBulk;
        break;
      }
      if (buf_.size() < p + static_cast<size_t>(n) + 2) return 0;
      out.str.assign(buf_, p, static_cast<size_t>(n));
      p += static_cast<size_t>(n) + 2;
      out.kind = type == '$'   ? Value::Kind::kBulk
                 : type == '=' ? Value::Kind::kVerbatim
                               : Value::Kind::kError;  // `!` blob error
      break;
    }
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': {
      if (!ParseLength(line, n) || n < -1) {
        error_ = "bad aggregate length " + Quote(line);
        return -1;
      }
      if (n == -1) {
        if (type != '*') {
          error_ = "negative length on a RESP3 aggregate";
          return -1;
        }
        out.kind = Value::Kind::kNilArray;
        break;
      }
      long long count = type == '%' || type == '|' ? n * 2 : n;
      std::vector<Value> items(static_cast<size_t>(count));
      for (auto& item : items) {
        int rc = ParseAt(p, item, depth + 1);
        if (rc != 1) return rc;
      }
      if (type == '|') {
        // An attribute precedes the value it describes: parse that value and attach.
        Value inner;
        int rc = ParseAt(p, inner, depth + 1);
        if (rc != 1) return rc;
        out = std::move(inner);
        out.attributes = std::move(items);
        pos = p;
        return 1;
      }
      out.elements = std::move(items);
      out.kind = type == '*'   ? Value::Kind::kArray
                 : type == '~' ? Value::Kind::kSet
                 : type == '>' ? Value::Kind::kPush
                               : Value::Kind::kMap;
      break;
    }
    default:
      error_ = "unknown type byte " + Quote(std::string_view(&type, 1));
      return -1;
  }
  pos = p;
  return 1;
}

Connection::~Connection() { Close(); }

bool Connection::Open(int port) {
  Close();
  timeval tv{5, 0};
  ctx_ = redisConnectWithTimeout("127.0.0.1", port, tv);
  if (ctx_ == nullptr || ctx_->err != 0) {
    error_ = ctx_ != nullptr ? ctx_->errstr : "out of memory";
    Close();
    return false;
  }
  parser_.Reset();
  return true;
}

void Connection::Close() {
  if (ctx_ != nullptr) redisFree(ctx_);
  ctx_ = nullptr;
  parser_.Reset();
}

bool Connection::Send(const std::vector<std::string>& argv) {
  if (ctx_ == nullptr) return false;
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  for (const auto& a : argv) {
    ptrs.push_back(a.data());
    lens.push_back(a.size());
  }
  char* cmd = nullptr;
  int len = redisFormatCommandArgv(&cmd, static_cast<int>(argv.size()), ptrs.data(), lens.data());
  if (len < 0) {
    error_ = "cannot encode request";
    return false;
  }
  bool ok = true;
  for (int off = 0; off < len;) {
    ssize_t w = ::write(ctx_->fd, cmd + off, static_cast<size_t>(len - off));
    if (w < 0 && (errno == EINTR || errno == EAGAIN)) {
      pollfd pfd{ctx_->fd, POLLOUT, 0};
      ::poll(&pfd, 1, 1000);
      continue;
    }
    if (w <= 0) {
      error_ = std::string("write: ") + std::strerror(errno);
      ok = false;
      break;
    }
    off += static_cast<int>(w);
  }
  std::free(cmd);
  if (!ok) Close();
  return ok;
}

Value Connection::Receive(std::chrono::milliseconds timeout) {
  Value lost;
  lost.kind = Value::Kind::kLost;
  if (ctx_ == nullptr) {
    lost.str = "not connected";
    return lost;
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[65536];
  for (;;) {
    Value v;
    int rc = parser_.Next(v);
    if (rc == 1) return v;
    if (rc < 0) {
      lost.str = "protocol error: " + parser_.error();
      Close();
      return lost;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      lost.str = "no reply within " + std::to_string(timeout.count()) + " ms";
      Close();
      return lost;
    }
    pollfd pfd{ctx_->fd, POLLIN, 0};
    int pr = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) continue;
    ssize_t n = ::read(ctx_->fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      lost.str = n == 0 ? "connection closed" : std::string("read: ") + std::strerror(errno);
      Close();
      return lost;
    }
    parser_.Feed(buf, static_cast<size_t>(n));
  }
}

Value Connection::Call(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  if (!Send(argv)) {
    Value lost;
    lost.kind = Value::Kind::kLost;
    lost.str = "send failed: " + error_;
    return lost;
  }
  return Receive(timeout);
}

}  // namespace difftest
