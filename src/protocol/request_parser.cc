#include "protocol/request_parser.h"

#include <cctype>
#include <cstdint>
#include <cstring>

#include "protocol/errors.h"
#include "util/numbers.h"

namespace redistp {
namespace {

constexpr size_t kInlineMaxSize = 64 * 1024;     // longest inline request / length line
constexpr int64_t kMaxMultibulkLen = INT32_MAX;  // Redis reads the count as a C int
constexpr int64_t kUnauthMultibulkLen = 10;
constexpr int64_t kUnauthBulkLen = 16384;

bool IsHexDigit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  return std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
}

// The fast path for the length lines of nearly every request ("*3\r", "$5\r"): a canonical
// decimal ("0", or 1 to 18 digits without a leading zero) starting at buf[p] and ending at a
// '\r' that is followed by one more byte. Stores the value and returns the '\r' position, or
// npos when the line is anything else (a sign, a leading zero, too long, not yet complete):
// the general path then decides, with its checks and error texts, so both paths accept the
// same lines.
size_t ScanLengthLine(std::string_view buf, size_t p, int64_t* out) {
  const size_t n = buf.size();
  size_t i = p;
  int64_t v = 0;
  if (i < n && buf[i] == '0') {
    ++i;
  } else {
    const size_t stop = p + 18 < n ? p + 18 : n;
    while (i < stop && static_cast<unsigned>(buf[i] - '0') <= 9) v = v * 10 + (buf[i++] - '0');
    if (i == p) return std::string_view::npos;
  }
  if (i + 1 >= n || buf[i] != '\r') return std::string_view::npos;
  *out = v;
  return i;
}

}  // namespace

bool SplitInlineArgs(std::string_view line, std::vector<std::string>* out) {
  out->clear();
  size_t i = 0;
  const size_t n = line.size();
  while (true) {
    while (i < n && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= n) return true;
    std::string cur;
    bool in_double = false, in_single = false, done = false;
    while (!done) {
      if (in_double) {
        if (i >= n) return false;
        if (line[i] == '\\' && i + 3 < n && line[i + 1] == 'x' && IsHexDigit(line[i + 2]) &&
            IsHexDigit(line[i + 3])) {
          cur.push_back(static_cast<char>(HexValue(line[i + 2]) * 16 + HexValue(line[i + 3])));
          i += 3;
        } else if (line[i] == '\\' && i + 1 < n) {
          ++i;
          char c = line[i];
          switch (c) {
            case 'n':
              c = '\n';
              break;
            case 'r':
              c = '\r';
              break;
            case 't':
              c = '\t';
              break;
            case 'b':
              c = '\b';
              break;
            case 'a':
              c = '\a';
              break;
            default:
              break;
          }
          cur.push_back(c);
        } else if (line[i] == '"') {
          // A closing quote must be followed by a space or the end.
          if (i + 1 < n && !std::isspace(static_cast<unsigned char>(line[i + 1]))) return false;
          done = true;
        } else {
          cur.push_back(line[i]);
        }
      } else if (in_single) {
        if (i >= n) return false;
        if (line[i] == '\\' && i + 1 < n && line[i + 1] == '\'') {
          ++i;
          cur.push_back('\'');
        } else if (line[i] == '\'') {
          if (i + 1 < n && !std::isspace(static_cast<unsigned char>(line[i + 1]))) return false;
          done = true;
        } else {
          cur.push_back(line[i]);
        }
      } else {
        if (i >= n) {
          done = true;
          break;
        }
        char c = line[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\0') {
          done = true;
        } else if (c == '"') {
          in_double = true;
        } else if (c == '\'') {
          in_single = true;
        } else {
          cur.push_back(c);
        }
      }
      if (i < n) ++i;
    }
    out->push_back(std::move(cur));
  }
}

void RequestParser::Reset() {
  multibulk_len_ = 0;
  bulk_len_ = -1;
  pos_ = 0;
  spans_.clear();
  args_.clear();
  consumed_ = 0;
}

RequestParser::Status RequestParser::Fail(std::string_view text) {
  error_.assign(text);
  return Status::kError;
}

size_t RequestParser::bulk_bytes_missing(size_t buffered) const {
  if (multibulk_len_ <= 0 || bulk_len_ < 0) return 0;
  size_t need = pos_ + static_cast<size_t>(bulk_len_) + 2;
  return need > buffered ? need - buffered : 0;
}

RequestParser::Status RequestParser::Parse(std::string_view buf, const ParserLimits& limits) {
  if (multibulk_len_ == 0) {
    args_.clear();
    if (buf.empty()) return Status::kNeedMore;
    if (buf[0] != '*') return ParseInline(buf);
  }
  return ParseMultibulk(buf, limits);
}

RequestParser::Status RequestParser::ParseInline(std::string_view buf) {
  size_t nl = buf.find('\n');
  if (nl == std::string_view::npos) {
    if (buf.size() > kInlineMaxSize) return Fail(err::kProtoBigInline);
    return Status::kNeedMore;
  }
  std::string_view line = buf.substr(0, nl);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (!SplitInlineArgs(line, &inline_storage_)) return Fail(err::kProtoUnbalancedQuotes);
  consumed_ = nl + 1;
  if (inline_storage_.empty()) return Status::kEmpty;
  args_.clear();
  for (const std::string& s : inline_storage_) args_.emplace_back(s);
  return Status::kCommand;
}

RequestParser::Status RequestParser::ParseMultibulk(std::string_view buf,
                                                    const ParserLimits& limits) {
  if (multibulk_len_ == 0) {
    int64_t n;
    size_t cr = ScanLengthLine(buf, 1, &n);
    if (cr == std::string_view::npos) {
      cr = buf.find('\r');
      if (cr == std::string_view::npos) {
        if (buf.size() > kInlineMaxSize) return Fail(err::kProtoBigMultibulk);
        return Status::kNeedMore;
      }
      if (cr > kInlineMaxSize) return Fail(err::kProtoBigMultibulk);
      if (cr + 1 >= buf.size()) return Status::kNeedMore;  // wait for the '\n'
      if (!ParseInt64(buf.substr(1, cr - 1), &n)) return Fail(err::kProtoInvalidMultibulk);
    }
    if (n > kMaxMultibulkLen) return Fail(err::kProtoInvalidMultibulk);
    if (!limits.authenticated && n > kUnauthMultibulkLen) return Fail(err::kProtoUnauthMultibulk);
    pos_ = cr + 2;
    if (n <= 0) {
      consumed_ = pos_;
      pos_ = 0;
      return Status::kEmpty;
    }
    multibulk_len_ = n;
    spans_.clear();
    // Reserve for small counts only: a hostile "*1000000000" must not allocate up front.
    spans_.reserve(static_cast<size_t>(n < 1024 ? n : 1024));
  }
  while (static_cast<int64_t>(spans_.size()) < multibulk_len_) {
    if (bulk_len_ < 0) {
      if (pos_ >= buf.size()) return Status::kNeedMore;
      int64_t len;
      size_t cr = buf[pos_] == '$' ? ScanLengthLine(buf, pos_ + 1, &len) : std::string_view::npos;
      if (cr == std::string_view::npos) {
        cr = buf.find('\r', pos_);
        if (cr == std::string_view::npos) {
          if (buf.size() - pos_ > kInlineMaxSize) return Fail(err::kProtoBigBulk);
          return Status::kNeedMore;
        }
        if (cr - pos_ > kInlineMaxSize) return Fail(err::kProtoBigBulk);
        if (cr + 1 >= buf.size()) return Status::kNeedMore;
        if (buf[pos_] != '$') return Fail(err::ProtoExpectedDollar(buf[pos_]));
        if (!ParseInt64(buf.substr(pos_ + 1, cr - pos_ - 1), &len) || len < 0) {
          return Fail(err::kProtoInvalidBulk);
        }
      }
      if (len > limits.max_bulk_len) return Fail(err::kProtoInvalidBulk);
      if (!limits.authenticated && len > kUnauthBulkLen) return Fail(err::kProtoUnauthBulk);
      bulk_len_ = len;
      pos_ = cr + 2;
    }
    size_t need = pos_ + static_cast<size_t>(bulk_len_) + 2;
    if (buf.size() < need) return Status::kNeedMore;
    spans_.emplace_back(pos_, static_cast<size_t>(bulk_len_));
    pos_ = need;
    bulk_len_ = -1;
  }
  args_.clear();
  for (const auto& [off, len] : spans_) args_.emplace_back(buf.data() + off, len);
  consumed_ = pos_;
  multibulk_len_ = 0;
  pos_ = 0;
  spans_.clear();
  return Status::kCommand;
}

}  // namespace redistp
