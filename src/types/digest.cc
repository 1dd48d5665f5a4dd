#include "types/digest.h"

#include <openssl/evp.h>

#include <cstring>

#include "types/type_ops.h"
#include "util/numbers.h"

namespace redistp {

ValueDigest::ValueDigest() : ctx_(EVP_MD_CTX_new()) {}

ValueDigest::~ValueDigest() { EVP_MD_CTX_free(ctx_); }

void ValueDigest::Hash(const void* data, size_t len, Bytes out) {
  unsigned int n = 0;
  EVP_DigestInit_ex(ctx_, EVP_sha1(), nullptr);
  EVP_DigestUpdate(ctx_, data, len);
  EVP_DigestFinal_ex(ctx_, out, &n);
}

void ValueDigest::Xor(Bytes d, const void* data, size_t len) {
  Bytes h;
  Hash(data, len, h);
  for (int i = 0; i < 20; ++i) d[i] ^= h[i];
}

void ValueDigest::Mix(Bytes d, const void* data, size_t len) {
  Xor(d, data, len);
  Bytes h;
  Hash(d, 20, h);
  std::memcpy(d, h, 20);
}

void ValueDigest::MixU32(Bytes d, uint32_t v) {
  unsigned char be[4] = {static_cast<unsigned char>(v >> 24), static_cast<unsigned char>(v >> 16),
                         static_cast<unsigned char>(v >> 8), static_cast<unsigned char>(v)};
  Mix(d, be, sizeof(be));
}

void ValueDigest::AddValue(Bytes d, const Value& v) {
  MixU32(d, DigestTypeCode(v.type()));
  if (v.is_string()) {
    char scratch[kMaxInt64Chars + 1];
    Mix(d, v.View(scratch));
    return;
  }
  current_ = d;
  FindTypeOps(v.type())->digest(v.object(), *this);
  current_ = nullptr;
}

std::string ValueDigest::Hex(const Bytes d) {
  static const char kHex[] = "0123456789abcdef";
  std::string s(40, '0');
  for (int i = 0; i < 20; ++i) {
    s[2 * i] = kHex[d[i] >> 4];
    s[2 * i + 1] = kHex[d[i] & 15];
  }
  return s;
}

uint32_t DigestTypeCode(ValueType t) {
  switch (t) {
    case ValueType::kString:
      return 0;
    case ValueType::kList:
      return 1;
    case ValueType::kSet:
      return 2;
    case ValueType::kZSet:
      return 3;
    case ValueType::kHash:
      return 4;
    case ValueType::kStream:
      return 6;
  }
  return 0;
}

}  // namespace redistp
