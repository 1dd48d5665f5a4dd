// Every client-visible error text, byte-identical to Redis 7.0's (without '-' and CRLF), in
// namespace redistp::err. A text is a constant (kWrongType); a text that names the command or
// an argument is a function that formats it (WrongArity("get")), cutting a client's argument
// at a NUL byte where Redis prints it with C's %s (UpToNul).
//
// The texts are kept by family, one header each, and this header gathers them, so a user
// includes just this one:
//   errors_common.h     argument and value checks, arity and subcommand errors, the
//                       formatting helpers, authentication, the protocol
//   errors_types.h      keys and databases, strings, bitmaps, hashes, lists, sets, sorted sets,
//                       SORT, streams, HyperLogLog, geo
//   errors_server.h     connections and CLIENT, transactions, blocking and temporary keys,
//                       server and introspection commands, maxmemory, Pub/Sub, client-side
//                       caching, persistence (RDB, AOF, DUMP/RESTORE/MIGRATE)
//   errors_scripting.h  EVAL and SCRIPT, redis.call, busy scripts, FUNCTION and FCALL
//   errors_failover.h   FAILOVER and PSYNC ... FAILOVER
// A new text goes to its family's header, beside the texts of the same commands.
#pragma once

#include "protocol/errors_acl.h"        // IWYU pragma: export
#include "protocol/errors_cluster.h"    // IWYU pragma: export
#include "protocol/errors_common.h"     // IWYU pragma: export
#include "protocol/errors_failover.h"   // IWYU pragma: export
#include "protocol/errors_scripting.h"  // IWYU pragma: export
#include "protocol/errors_server.h"     // IWYU pragma: export
#include "protocol/errors_types.h"      // IWYU pragma: export
