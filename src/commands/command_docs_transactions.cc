// Documents of the transactions group: MULTI, EXEC, DISCARD, WATCH, UNWATCH. Transcribed
// from the interface Redis 7.0 reports; the summaries are our own words. See command_docs.h.
#include "commands/command_docs.h"

namespace redistp {

using docs::Key;

std::vector<CommandDoc> TransactionCommandDocs() {
  return {
      {.name = "multi",
       .summary = "Starts queueing commands for a transaction",
       .since = "1.2.0",
       .group = "transactions",
       .complexity = "O(1)"},
      {.name = "exec",
       .summary = "Runs the queued commands of a transaction as one unit",
       .since = "1.2.0",
       .group = "transactions",
       .complexity = "Depends on commands in the transaction"},
      {.name = "discard",
       .summary = "Drops the queued commands of a transaction",
       .since = "2.0.0",
       .group = "transactions",
       .complexity = "O(N), when N is the number of queued commands"},
      {.name = "watch",
       .summary = "Makes the next transaction fail if any of the given keys changes first",
       .since = "2.2.0",
       .group = "transactions",
       .complexity = "O(1) for every key.",
       .key_specs = {{.flags = kKeyRO, .index = 1, .last_key = -1}},
       .args = {Key("key", 0).Multiple()}},
      {.name = "unwatch",
       .summary = "Stops watching every key this connection watches",
       .since = "2.2.0",
       .group = "transactions",
       .complexity = "O(1)"},
  };
}

}  // namespace redistp
