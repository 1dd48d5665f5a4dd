// Small helpers shared by the generic key command files (keys.cc, keys_expire.cc,
// keys_inspect.cc): the "read without touching" lookup, Redis's int-argument parsing and the
// DB-index check, so the three files answer the same argument with the same error.
#pragma once

#include <cstdint>
#include <string_view>

#include "db/database.h"
#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "server/command.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp::keycmd {

// The lookup Redis does for EXISTS, TYPE, TTL and OBJECT: expired keys are deleted on sight and
// keyspace hits/misses are counted, but the key's LRU/LFU data is left alone, so asking about
// a key is not an access to it. A miss is announced as "keymiss" unless `announce_miss` is
// false (OBJECT: Redis looks its key up without notifying).
inline Entry* LookupNoTouch(CommandContext& c, std::string_view key, bool announce_miss = true) {
  Entry* e = c.db.Peek(key);
  KeyspaceContext& ks = c.server.keyspace();
  if (e == nullptr) {
    ++ks.keyspace_misses;
    if (announce_miss) c.db.ReportMiss(key);
  } else {
    ++ks.keyspace_hits;
  }
  return e;
}

// Parses a C-int argument the way Redis's getIntFromObjectOrReply does: text that is not a
// 64-bit integer answers "value is not an integer", a 64-bit value outside 32 bits answers the
// int range error. With `custom_error` both failures answer that text instead (SWAPDB).
// On failure the error is replied and false returned.
inline bool ParseIntArg(CommandContext& c, std::string_view arg, int* out,
                        std::string_view custom_error = {}) {
  int64_t v;
  if (!ParseInt64(arg, &v)) {
    c.reply.Error(custom_error.empty() ? err::kNotInteger : custom_error);
    return false;
  }
  if (v < INT32_MIN || v > INT32_MAX) {
    c.reply.Error(custom_error.empty() ? err::kInt32Range : custom_error);
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

// The database with this index, or nullptr after replying "DB index is out of range".
inline Database* DbByIndexOrReply(CommandContext& c, int index) {
  if (index < 0 || index >= c.server.db_count()) {
    c.reply.Error(err::kDbIndexRange);
    return nullptr;
  }
  return &c.server.db(index);
}

}  // namespace redistp::keycmd
