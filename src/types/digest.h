// ValueDigest: the SHA1-based signatures of DEBUG DIGEST and DEBUG DIGEST-VALUE.
//
// Redis defines two ways of folding data into a 20-byte digest, and every type's digest is built
// from them so that a dataset digests identically on Redis and redis-tp:
//   Xor(data):  d ^= SHA1(data)            — order-independent (set members, hash fields)
//   Mix(data):  d = SHA1(d ^ SHA1(data))   — order-dependent (list elements, a key's parts)
// A value's digest starts with its type as 4 big-endian bytes (Redis's RDB object type numbers),
// then the type's own elements, then Xor("!!expire!!") if the key has a TTL (the database
// layer adds that part). Aggregates contribute through TypeOps::digest.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "types/value.h"

struct evp_md_ctx_st;

namespace redistp {

class ValueDigest {
 public:
  using Bytes = unsigned char[20];

  ValueDigest();
  ~ValueDigest();
  ValueDigest(const ValueDigest&) = delete;
  ValueDigest& operator=(const ValueDigest&) = delete;

  // SHA1 of data into out.
  void Hash(const void* data, size_t len, Bytes out);
  // d ^= SHA1(data)
  void Xor(Bytes d, const void* data, size_t len);
  // d = SHA1(d ^ SHA1(data))
  void Mix(Bytes d, const void* data, size_t len);
  void Mix(Bytes d, std::string_view s) { Mix(d, s.data(), s.size()); }
  void MixU32(Bytes d, uint32_t v);

  // Folds a whole value (type code, then its bytes or elements) into d. The TTL marker is the
  // caller's (it belongs to the key, not the value).
  void AddValue(Bytes d, const Value& v);

  // The digest being built by an aggregate's TypeOps::digest (set by AddValue).
  unsigned char* current() { return current_; }

  static std::string Hex(const Bytes d);

 private:
  evp_md_ctx_st* ctx_;
  unsigned char* current_ = nullptr;
};

// Redis's numbering of value types (its OBJ_* constants), used in digests.
uint32_t DigestTypeCode(ValueType t);

}  // namespace redistp
