// DUMP payloads (see dump_payload.h for the layout).
#include "types/dump_payload.h"

#include <cstdint>

#include "types/serialize.h"
#include "types/type_ops.h"
#include "util/crc64.h"

namespace redistp {

std::string CreateDumpPayload(const Value& v, bool compress, int rdb_version) {
  std::string out;
  RdbWriter w(&out, compress, rdb_version);
  SerializeValue(v, w);
  w.Byte(static_cast<uint8_t>(rdb_version & 0xff));
  w.Byte(static_cast<uint8_t>(rdb_version >> 8));
  uint64_t crc = Crc64(0, out);
  for (int shift = 0; shift < 64; shift += 8) w.Byte(static_cast<uint8_t>(crc >> shift));
  return out;
}

bool VerifyDumpPayload(std::string_view payload, bool skip_crc, int max_rdb_version) {
  if (payload.size() < kDumpTrailerBytes) return false;
  const auto* footer =
      reinterpret_cast<const unsigned char*>(payload.data()) + payload.size() - kDumpTrailerBytes;
  const int version = footer[0] | (footer[1] << 8);
  if (version > max_rdb_version) return false;
  if (skip_crc) return true;
  uint64_t stored = 0;
  for (int i = 7; i >= 0; --i) stored = (stored << 8) | footer[2 + i];
  return Crc64(0, payload.substr(0, payload.size() - 8)) == stored;
}

Result<Value> LoadDumpPayload(std::string_view payload, const TypeLimits& limits) {
  // Redis reads the object from the whole payload, trailer included, so an object that runs
  // into the trailer's bytes loads there too; so does it here.
  RdbReader r(payload);
  uint8_t type;
  if (!r.Byte(&type)) return Status::Error("no type byte");
  return DeserializeValue(type, r, limits);
}

}  // namespace redistp
