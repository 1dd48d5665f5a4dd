// Documents of redis-tp's own commands: temporary keys (SETTP, BSETTP, DELTP, OBJECT OWNER,
// OBJECT FENCE, CLIENT LEASE) and existence watches (WATCHEX, UNWATCHEX), as the project spec
// "Temporary keys and existence watches" defines them. Redis has no such commands, so these
// documents are ours entirely; "since" names the Redis version this server reports, and each
// summary says the command is a redis-tp extension.
#include "commands/command_docs.h"

namespace redistp {

using docs::Double;
using docs::Integer;
using docs::Key;
using docs::PureToken;
using docs::String;

std::vector<CommandDoc> TempKeyCommandDocs() {
  return {
      {.name = "settp",
       .summary = "redis-tp: creates a key owned by this connection, unless the key exists",
       .since = "7.0.15",
       .group = "generic",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyOW | kKeyInsert, .index = 1}},
       .args = {Key("key", 0), String("value"), PureToken("FENCE").Optional()}},
      {.name = "bsettp",
       .summary = "redis-tp: like SETTP, but waits in line for the key to disappear",
       .since = "7.0.15",
       .group = "generic",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyOW | kKeyInsert, .index = 1}},
       .args = {Key("key", 0), String("value"), Double("timeout"), PureToken("FENCE").Optional()}},
      {.name = "deltp",
       .summary = "redis-tp: deletes the given keys that this connection owns",
       .since = "7.0.15",
       .group = "generic",
       .complexity = "O(N) where N is the number of keys given",
       .key_specs = {{.flags = kKeyRM | kKeyDelete, .index = 1, .last_key = -1}},
       .args = {Key("key", 0).Multiple()}},
      {.name = "watchex",
       .summary = "redis-tp: pushes a notice whenever one of the keys appears or disappears",
       .since = "7.0.15",
       .group = "generic",
       .complexity = "O(N) where N is the number of keys given",
       .key_specs = {{.flags = kKeyRO, .index = 1, .last_key = -1}},
       .args = {Key("key", 0).Multiple()}},
      {.name = "unwatchex",
       .summary = "redis-tp: removes existence watches of this connection, or all of them",
       .since = "7.0.15",
       .group = "generic",
       .complexity = "O(N) where N is the number of watches removed",
       .key_specs = {{.flags = kKeyRO, .index = 1, .last_key = -1}},
       .args = {Key("key", 0).Optional().Multiple()}},
      {.name = "object|owner",
       .summary = "redis-tp: returns the ID of the connection that owns a temporary key",
       .since = "7.0.15",
       .group = "generic",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyRO, .index = 2}},
       .args = {Key("key", 0)}},
      {.name = "object|fence",
       .summary = "redis-tp: returns the fencing token a temporary key was created with",
       .since = "7.0.15",
       .group = "generic",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyRO, .index = 2}},
       .args = {Key("key", 0)}},
      {.name = "client|lease",
       .summary = "redis-tp: closes this connection if it stays silent for the given time",
       .since = "7.0.15",
       .group = "connection",
       .complexity = "O(1)",
       .args = {Integer("milliseconds")}},
  };
}

}  // namespace redistp
