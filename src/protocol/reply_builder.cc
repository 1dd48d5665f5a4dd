#include "protocol/reply_builder.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "util/numbers.h"

namespace redistp {

void ReplyBuilder::Header(char kind, size_t n) {
  if (!enabled_) return;
  char buf[kMaxInt64Chars + 4];
  buf[0] = kind;
  size_t len = 1 + FormatInt64(static_cast<int64_t>(n), buf + 1);
  buf[len++] = '\r';
  buf[len++] = '\n';
  out_->Append(buf, len);
}

void ReplyBuilder::Simple(std::string_view s) {
  if (!enabled_) return;
  out_->Reserve(s.size() + 3);
  out_->Append('+');
  out_->Append(s);
  out_->Append("\r\n", 2);
}

void ReplyBuilder::Error(std::string_view msg) {
  ++errors_written_;
  size_t sp = msg.find(' ');
  std::string_view prefix = msg.substr(0, sp == std::string_view::npos ? msg.size() : sp);
  last_error_len_ = std::min(prefix.size(), sizeof(last_error_prefix_));
  std::memcpy(last_error_prefix_, prefix.data(), last_error_len_);
  if (!enabled_) return;
  out_->Reserve(msg.size() + 3);
  out_->Append('-');
  // Error lines cannot carry CR/LF; Redis replaces them with spaces. (Texts Redis formats with
  // addReplyErrorFormat also lose them at their end: err::TrailingArg does that where it applies.)
  for (char c : msg) out_->Append(c == '\r' || c == '\n' ? ' ' : c);
  out_->Append("\r\n", 2);
}

void ReplyBuilder::Int(int64_t v) {
  if (!enabled_) return;
  char buf[kMaxInt64Chars + 4];
  buf[0] = ':';
  size_t len = 1 + FormatInt64(v, buf + 1);
  buf[len++] = '\r';
  buf[len++] = '\n';
  out_->Append(buf, len);
}

void ReplyBuilder::Bulk(std::string_view s) {
  if (!enabled_) return;
  // A short bulk (a list element, a field, a member) is framed on the stack and appended once:
  // LRANGE and HGETALL replies are hundreds of them, and each append is a call with its own
  // capacity check. A longer one is appended in three parts, without the extra copy.
  constexpr size_t kShort = 64;
  char buf[kMaxInt64Chars + 4 + kShort + 2];
  buf[0] = '$';
  size_t len = 1 + FormatInt64(static_cast<int64_t>(s.size()), buf + 1);
  buf[len++] = '\r';
  buf[len++] = '\n';
  if (s.size() <= kShort) {
    if (!s.empty()) std::memcpy(buf + len, s.data(), s.size());  // data() may be null
    len += s.size();
    buf[len++] = '\r';
    buf[len++] = '\n';
    out_->Append(buf, len);
    return;
  }
  out_->Append(buf, len);
  out_->Append(s);
  out_->Append("\r\n", 2);
}

void ReplyBuilder::Null() { Raw(resp_ >= 3 ? "_\r\n" : "$-1\r\n"); }

void ReplyBuilder::NullArray() { Raw(resp_ >= 3 ? "_\r\n" : "*-1\r\n"); }

void ReplyBuilder::Map(size_t pairs) {
  if (resp_ >= 3) {
    Header('%', pairs);
  } else {
    Header('*', pairs * 2);
  }
}

void ReplyBuilder::Double(double v) {
  if (resp_ < 3) {
    Bulk(FormatDouble(v));
    return;
  }
  if (!enabled_) return;
  std::string s = std::isinf(v) ? (v > 0 ? "inf" : "-inf") : FormatDouble(v);
  out_->Append(',');
  out_->Append(s);
  out_->Append("\r\n", 2);
}

void ReplyBuilder::Bool(bool v) {
  if (resp_ >= 3) {
    Raw(v ? "#t\r\n" : "#f\r\n");
  } else {
    Raw(v ? ":1\r\n" : ":0\r\n");
  }
}

void ReplyBuilder::Verbatim(std::string_view text, std::string_view format) {
  if (resp_ < 3) {
    Bulk(text);
    return;
  }
  if (!enabled_) return;
  Header('=', text.size() + 4);
  out_->Append(format.substr(0, 3));
  out_->Append(':');
  out_->Append(text);
  out_->Append("\r\n", 2);
}

void ReplyBuilder::BigNumber(std::string_view digits) {
  if (resp_ < 3) {
    Bulk(digits);
    return;
  }
  if (!enabled_) return;
  out_->Append('(');
  out_->Append(digits);
  out_->Append("\r\n", 2);
}

size_t ReplyBuilder::DeferLen() { return out_->Readable(); }

void ReplyBuilder::SetDeferredLen(size_t handle, char kind, size_t n) {
  if (!enabled_) return;
  if (kind == '%' && resp_ < 3) {
    kind = '*';
    n *= 2;
  } else if (kind == '~' && resp_ < 3) {
    kind = '*';
  }
  char buf[kMaxInt64Chars + 4];
  buf[0] = kind;
  size_t len = 1 + FormatInt64(static_cast<int64_t>(n), buf + 1);
  buf[len++] = '\r';
  buf[len++] = '\n';
  out_->InsertAt(handle, std::string_view(buf, len));
}

}  // namespace redistp
