#include "types/serialize.h"

#include <liblzf/lzf.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "util/numbers.h"

namespace redistp {
namespace {

constexpr uint8_t kLen6 = 0;
constexpr uint8_t kLen14 = 1;
constexpr uint8_t kLen32 = 0x80;
constexpr uint8_t kLen64 = 0x81;
constexpr uint8_t kEncVal = 3;  // top bits 11: special encoding
constexpr uint8_t kEncInt8 = 0;
constexpr uint8_t kEncInt16 = 1;
constexpr uint8_t kEncInt32 = 2;
constexpr uint8_t kEncLzf = 3;

const Status kTruncated = Status::Error("truncated RDB payload");
const Status kBadEncoding = Status::Error("unknown RDB string encoding");

}  // namespace

void RdbWriter::Length(uint64_t len) {
  if (len < (1u << 6)) {
    Byte(static_cast<uint8_t>((kLen6 << 6) | len));
  } else if (len < (1u << 14)) {
    Byte(static_cast<uint8_t>((kLen14 << 6) | (len >> 8)));
    Byte(static_cast<uint8_t>(len & 0xFF));
  } else if (len <= std::numeric_limits<uint32_t>::max()) {
    Byte(kLen32);
    for (int shift = 24; shift >= 0; shift -= 8) Byte(static_cast<uint8_t>(len >> shift));
  } else {
    Byte(kLen64);
    for (int shift = 56; shift >= 0; shift -= 8) Byte(static_cast<uint8_t>(len >> shift));
  }
}

void RdbWriter::Integer(int64_t v) {
  if (v >= INT8_MIN && v <= INT8_MAX) {
    Byte((kEncVal << 6) | kEncInt8);
    Byte(static_cast<uint8_t>(v));
  } else if (v >= INT16_MIN && v <= INT16_MAX) {
    Byte((kEncVal << 6) | kEncInt16);
    Byte(static_cast<uint8_t>(v));
    Byte(static_cast<uint8_t>(v >> 8));
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    Byte((kEncVal << 6) | kEncInt32);
    for (int shift = 0; shift < 32; shift += 8) Byte(static_cast<uint8_t>(v >> shift));
  } else {
    char buf[kMaxInt64Chars + 1];
    size_t n = FormatInt64(v, buf);
    Length(n);
    out_->append(buf, n);
  }
}

// Redis tries the integer form only for short strings that read back identically.
bool RdbWriter::TryIntegerEncoding(std::string_view s) {
  if (s.empty() || s.size() > 11) return false;
  int64_t v;
  if (!ParseInt64(s, &v) || v < INT32_MIN || v > INT32_MAX) return false;
  char buf[kMaxInt64Chars + 1];
  if (std::string_view(buf, FormatInt64(v, buf)) != s) return false;
  Integer(v);
  return true;
}

bool RdbWriter::TryLzf(std::string_view s) {
  if (s.size() <= 4) return false;
  std::vector<char> buf(s.size() - 4);
  unsigned int clen = lzf_compress(s.data(), static_cast<unsigned int>(s.size()), buf.data(),
                                   static_cast<unsigned int>(buf.size()));
  if (clen == 0) return false;
  Byte((kEncVal << 6) | kEncLzf);
  Length(clen);
  Length(s.size());
  out_->append(buf.data(), clen);
  return true;
}

void RdbWriter::String(std::string_view s) {
  if (TryIntegerEncoding(s)) return;
  if (compress_ && s.size() > 20 && TryLzf(s)) return;
  Length(s.size());
  out_->append(s.data(), s.size());
}

void RdbWriter::BinaryDouble(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));
  for (int shift = 0; shift < 64; shift += 8) Byte(static_cast<uint8_t>(bits >> shift));
}

bool RdbReader::Take(size_t n, const char** p) {
  if (remaining() < n) return false;
  *p = in_.data() + pos_;
  pos_ += n;
  return true;
}

bool RdbReader::Byte(uint8_t* b) {
  const char* p;
  if (!Take(1, &p)) return false;
  *b = static_cast<uint8_t>(*p);
  return true;
}

Status RdbReader::LengthOrEncoding(uint64_t* len, bool* encoded) {
  uint8_t first;
  if (!Byte(&first)) return kTruncated;
  *encoded = false;
  switch (first >> 6) {
    case kLen6:
      *len = first & 0x3F;
      return Status::Ok();
    case kLen14: {
      uint8_t second;
      if (!Byte(&second)) return kTruncated;
      *len = (static_cast<uint64_t>(first & 0x3F) << 8) | second;
      return Status::Ok();
    }
    case kEncVal:
      *encoded = true;
      *len = first & 0x3F;
      return Status::Ok();
    default:
      break;
  }
  int bytes = first == kLen32 ? 4 : first == kLen64 ? 8 : 0;
  if (bytes == 0) return Status::Error("unknown RDB length encoding");
  const char* p;
  if (!Take(static_cast<size_t>(bytes), &p)) return kTruncated;
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  *len = v;
  return Status::Ok();
}

Status RdbReader::Length(uint64_t* len) {
  bool encoded;
  Status st = LengthOrEncoding(len, &encoded);
  if (!st.ok()) return st;
  if (encoded) return Status::Error("unexpected RDB string encoding where a length belongs");
  return Status::Ok();
}

Status RdbReader::StringView(std::string* scratch, std::string_view* out, uint64_t max_len) {
  const size_t start = pos_;
  uint64_t len;
  bool encoded;
  Status st = LengthOrEncoding(&len, &encoded);
  if (!st.ok()) return st;
  if (encoded) {
    pos_ = start;
    if (!(st = String(scratch, max_len)).ok()) return st;
    *out = *scratch;
    return Status::Ok();
  }
  const char* p;
  if (len > max_len || !Take(len, &p)) return kTruncated;
  *out = std::string_view(p, len);
  return Status::Ok();
}

Status RdbReader::String(std::string* out, uint64_t max_len) {
  uint64_t len;
  bool encoded;
  Status st = LengthOrEncoding(&len, &encoded);
  if (!st.ok()) return st;
  const char* p;
  if (!encoded) {
    if (len > max_len || !Take(len, &p)) return kTruncated;
    out->assign(p, len);
    return Status::Ok();
  }
  int64_t v;
  switch (len) {
    case kEncInt8:
      if (!Take(1, &p)) return kTruncated;
      v = static_cast<int8_t>(p[0]);
      break;
    case kEncInt16:
      if (!Take(2, &p)) return kTruncated;
      v = static_cast<int16_t>(static_cast<uint8_t>(p[0]) | (static_cast<uint8_t>(p[1]) << 8));
      break;
    case kEncInt32: {
      if (!Take(4, &p)) return kTruncated;
      uint32_t u = 0;
      for (int i = 3; i >= 0; --i) u = (u << 8) | static_cast<uint8_t>(p[i]);
      v = static_cast<int32_t>(u);
      break;
    }
    case kEncLzf: {
      uint64_t clen, ulen;
      if (!(st = Length(&clen)).ok() || !(st = Length(&ulen)).ok()) return st;
      if (ulen > max_len || ulen == 0 || !Take(clen, &p)) return kTruncated;
      out->resize(ulen);
      unsigned int got = lzf_decompress(p, static_cast<unsigned int>(clen), out->data(),
                                        static_cast<unsigned int>(ulen));
      if (got != ulen) return Status::Error("invalid LZF compressed string");
      return Status::Ok();
    }
    default:
      return kBadEncoding;
  }
  char buf[kMaxInt64Chars + 1];
  out->assign(buf, FormatInt64(v, buf));
  return Status::Ok();
}

Status RdbReader::Raw(size_t n, std::string_view* out) {
  const char* p;
  if (!Take(n, &p)) return kTruncated;
  *out = std::string_view(p, n);
  return Status::Ok();
}

Status RdbReader::BinaryDouble(double* d) {
  const char* p;
  if (!Take(8, &p)) return kTruncated;
  uint64_t bits = 0;
  for (int i = 7; i >= 0; --i) bits = (bits << 8) | static_cast<uint8_t>(p[i]);
  std::memcpy(d, &bits, sizeof(bits));
  return Status::Ok();
}

Status RdbReader::TextDouble(double* d) {
  uint8_t len;
  if (!Byte(&len)) return kTruncated;
  switch (len) {
    case 253:
      *d = std::numeric_limits<double>::quiet_NaN();
      return Status::Ok();
    case 254:
      *d = std::numeric_limits<double>::infinity();
      return Status::Ok();
    case 255:
      *d = -std::numeric_limits<double>::infinity();
      return Status::Ok();
  }
  const char* p;
  if (!Take(len, &p)) return kTruncated;
  char text[256];  // NUL-terminated for strtod
  std::memcpy(text, p, len);
  text[len] = '\0';
  char* end;
  *d = std::strtod(text, &end);
  if (end == text) return Status::Error("invalid text double");
  return Status::Ok();
}

}  // namespace redistp
