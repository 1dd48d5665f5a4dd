// What DUMP and MIGRATE share beyond the payload itself (types/dump_payload.h).
#pragma once

#include <string>
#include <string_view>

#include "server/log.h"
#include "server/server.h"
#include "types/hash_rdb.h"
#include "types/serialize.h"
#include "types/value.h"

namespace redistp {

// A payload below RDB 12 (compat-version 7.0.x or 7.2.x) holds a hash's fields without their
// expire times (docs/compat-version.md): never silently, so each such payload is logged.
inline void WarnFieldTtlsLeftOut(Server& server, const Value& v, std::string_view key) {
  const Config& config = server.config();
  if (config.rdb_version >= kRdbVersion74 || !CarriesFieldExpires(v)) return;
  server.log().Log(LogLevel::kWarning,
                   "WARNING: the DUMP payload format of compat-version %s has no field expire "
                   "times: hash '%s' dumped without them; set compat-version 7.4.0 to keep them",
                   config.compat_version.c_str(), std::string(key).c_str());
}

}  // namespace redistp
