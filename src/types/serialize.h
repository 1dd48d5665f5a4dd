// RDB object encoding: the primitives every type's serialize/deserialize hook is written with.
//
// Redis's RDB format (version 10 in Redis 7.0, 11 in 7.2, 12 in 7.4) stores each value as a type
// byte followed by an object payload built from two primitives, which DUMP/RESTORE payloads share:
//   length:  00xxxxxx                      6-bit length
//            01xxxxxx xxxxxxxx             14-bit length, big-endian
//            10000000 + 4 bytes            32-bit length, big-endian
//            10000001 + 8 bytes            64-bit length, big-endian
//            11xxxxxx                      not a length: a special string encoding follows
//   string:  length + bytes, or a special encoding (11 in the top bits):
//            0 = int8, 1 = int16, 2 = int32 (little-endian), the string is its decimal text;
//            3 = LZF: compressed length, uncompressed length, compressed bytes.
// A string that is a canonical integer fitting 32 bits is written as an integer; a longer one is
// LZF-compressed when compression is on, the string is over 20 bytes and compression saves
// space, as Redis does. Readers validate every length against the bytes left, so a truncated
// or hostile payload is an error, never a crash or an unbounded allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "util/status.h"

namespace redistp {

// RDB type bytes: Redis 7.0's (RDB version 10), then 7.2's (11) and 7.4's (12).
enum RdbType : uint8_t {
  kRdbString = 0,
  kRdbList = 1,
  kRdbSet = 2,
  kRdbZSet = 3,
  kRdbHash = 4,
  kRdbZSet2 = 5,
  kRdbHashZipmap = 9,
  kRdbListZiplist = 10,
  kRdbSetIntset = 11,
  kRdbZSetZiplist = 12,
  kRdbHashZiplist = 13,
  kRdbListQuicklist = 14,
  kRdbStreamListpacks = 15,
  kRdbHashListpack = 16,
  kRdbZSetListpack = 17,
  kRdbListQuicklist2 = 18,
  kRdbStreamListpacks2 = 19,
  kRdbSetListpack = 20,          // 7.2: a small set's members in one listpack
  kRdbStreamListpacks3 = 21,     // 7.2: _2 plus each consumer's active time
  kRdbHashMetadataPreGa = 22,    // 7.4's release candidates: field TTLs, absolute
  kRdbHashListpackExPreGa = 23,  // 7.4's release candidates: (field, value, ttl) listpack
  kRdbHashMetadata = 24,         // 7.4: min TTL, then field TTLs relative to it
  kRdbHashListpackEx = 25,       // 7.4: min TTL, then the (field, value, ttl) listpack
};

// RDB file opcodes (the bytes that introduce something other than a key in an RDB file).
enum RdbOpcode : uint8_t {
  kRdbOpFunction2 = 245,      // a function library's code (7.0)
  kRdbOpFunctionPreGa = 246,  // 7.0's release candidates' format (refused, as by 7.0 GA)
  kRdbOpModuleAux = 247,
  kRdbOpIdle = 248,          // the next key's LRU idle time, in seconds (a length)
  kRdbOpFreq = 249,          // the next key's LFU counter (one byte)
  kRdbOpAux = 250,           // an aux field: name string, value string
  kRdbOpResizeDb = 251,      // database size and expires size hints (two lengths)
  kRdbOpExpireTimeMs = 252,  // the next key's absolute expire time, 8 bytes little-endian ms
  kRdbOpExpireTime = 253,    // the same in seconds, 4 bytes (RDB version < 9 files)
  kRdbOpSelectDb = 254,      // database number (a length)
  kRdbOpEof = 255,
};
// RDB format versions: what Redis 7.0 writes (and we write at the default compat-version),
// what 7.2 and 7.4 write, and the newest we read. The version written follows compat-version
// (server/version.h); every version up to kRdbMaxVersion loads.
inline constexpr int kRdbVersion70 = 10;
inline constexpr int kRdbVersion72 = 11;
inline constexpr int kRdbVersion74 = 12;
inline constexpr int kRdbMaxVersion = kRdbVersion74;
inline constexpr int kRdbFormatVersion = kRdbVersion70;  // the default ("REDIS0010")
inline constexpr int kRdbTypeModulePreGa = 6;            // module values: refused (no modules)
inline constexpr int kRdbTypeModule2 = 7;

// The error of a loader that met an aggregate with no element (the key is skipped, as Redis
// skips empty keys in RDB files).
inline constexpr std::string_view kRdbEmptyKey = "empty key";

class RdbWriter {
 public:
  // `version` is the RDB format version being written: the types' writers pick the encodings
  // that version has (a 7.2 image holds small sets as RDB_TYPE_SET_LISTPACK, a 7.0 one cannot).
  explicit RdbWriter(std::string* out, bool compress = true, int version = kRdbFormatVersion)
      : out_(out), compress_(compress), version_(version) {}

  void Byte(uint8_t b) { out_->push_back(static_cast<char>(b)); }
  void Length(uint64_t len);
  // A string in its most compact form (integer encoding, LZF, or plain).
  void String(std::string_view s);
  // An integer written as Redis writes an int-encoded string object.
  void Integer(int64_t v);
  // A double in binary form (8 bytes little-endian IEEE 754), as ZSET2 scores.
  void BinaryDouble(double d);
  std::string* out() { return out_; }
  int version() const { return version_; }

 private:
  bool TryIntegerEncoding(std::string_view s);
  bool TryLzf(std::string_view s);
  std::string* out_;
  bool compress_;
  int version_;
};

class RdbReader {
 public:
  explicit RdbReader(std::string_view in) : in_(in) {}

  bool Byte(uint8_t* b);
  // A plain length; an error if the next bytes are a special string encoding instead.
  Status Length(uint64_t* len);
  // A string in any encoding; `max_len` bounds what a hostile length may allocate.
  Status String(std::string* out, uint64_t max_len = kMaxStringLen);
  // The same string as a view: into the input when it is stored as plain bytes, else into
  // *scratch (integer and LZF encodings). Spares a copy of a large blob such as a listpack.
  Status StringView(std::string* scratch, std::string_view* out, uint64_t max_len = kMaxStringLen);
  Status BinaryDouble(double* d);
  // A double as RDB_TYPE_ZSET (version 1 sorted sets) stores its scores: a length byte, then
  // that many bytes of text; the lengths 253, 254 and 255 stand for NaN, +inf and -inf. The
  // text is read as Redis reads it (leading spaces skipped, the longest numeric prefix used,
  // an error only if there is none).
  Status TextDouble(double* d);
  // `n` raw bytes (a stream's 16-byte ids, 8-byte times), as a view into the input.
  Status Raw(size_t n, std::string_view* out);
  size_t remaining() const { return in_.size() - pos_; }
  size_t position() const { return pos_; }

  static constexpr uint64_t kMaxStringLen = 512ull * 1024 * 1024;

 private:
  // Reads a length or, when `encoded` is set on return, a special encoding number.
  Status LengthOrEncoding(uint64_t* len, bool* encoded);
  bool Take(size_t n, const char** p);
  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace redistp
