// What the rows of the script-calling commands (EVAL, EVALSHA and their _RO forms; FCALL,
// FCALL_RO) share: their flags and their one key spec (numkeys at 2, then that many keys).
#pragma once

#include <cstdint>
#include <string_view>

#include "scripting/script_engine.h"
#include "server/command.h"

namespace redistp {

// noscript, stale, skip-monitor, no-mandatory-keys, movable keys; read-only for the _RO forms,
// may-replicate for the others (CLIENT PAUSE WRITE holds them).
inline uint64_t ScriptCallFlags(bool read_only) {
  return kCmdNoScript | kCmdStale | kCmdSkipMonitor | kCmdNoMandatoryKeys | kCmdMovableKeys |
         (read_only ? kCmdReadOnly : kCmdMayReplicate);
}

// The flags of a script call whose script declares flags (a shebang's flags=, a function's
// flags), as Redis 7.0 derives them: the row's write, may-replicate, deny-oom and stale give
// way to what the script says — it writes unless no-writes, it is deny-oom unless no-writes or
// allow-oom, stale only with allow-stale. A script without a shebang keeps the row's flags.
inline uint64_t DeclaredScriptCallFlags(uint64_t flags, uint32_t script_flags) {
  if ((script_flags & kScriptEvalCompat) != 0) return flags;
  flags &= ~(kCmdWrite | kCmdMayReplicate | kCmdDenyOom | kCmdStale);
  if ((script_flags & (kScriptAllowOom | kScriptNoWrites)) == 0) flags |= kCmdDenyOom;
  if ((script_flags & kScriptNoWrites) == 0) flags |= kCmdWrite;
  if ((script_flags & kScriptAllowStale) != 0) flags |= kCmdStale;
  return flags;
}

// The keys a script call declares; `notes` as Redis words them for that command.
inline KeySpec ScriptCallKeySpec(bool read_only, std::string_view notes) {
  return KeySpec{.flags = read_only ? kKeyRO | kKeyAccess : kKeyRW | kKeyAccess | kKeyUpdate,
                 .notes = notes,
                 .index = 2,
                 .find = KeyFind::kKeynum,
                 .keynum_index = 0,
                 .first_key = 1};
}

inline constexpr std::string_view kScriptKeysRwNote =
    "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE";

}  // namespace redistp
