// How the client treats a user command, decided from its name (and subcommand) alone.
//
// Why it matters. In RESP2 the server sends a watch notification in-band as the array
// ["watchex", key, "ADD"|"DEL"] between two replies. A reply can have the very same shape (MGET
// of three keys whose values happen to be those strings, KEYS, LRANGE, EXEC, EVAL...). The
// client tells them apart by construction rather than by guessing — see redistp_client.h,
// "Telling pushes from replies" — and for that it needs to know which replies could look like
// a push at all:
//   kPlain         the reply can never be a flat 3-element array of bulk strings whose third
//                  element is ADD or DEL (statuses, integers, bulks, even-length arrays,
//                  nested arrays, BZPOPMIN's numeric score...);
//   kArrayCapable  it could (the default for every command not known to be plain);
//   kMulti/kExec/kDiscard   transaction control, tracked by the client;
//   kRefused       the command changes connection state the client manages itself (database,
//                  protocol, authentication, watches, subscriptions, reply mode, the connection's
//                  life). It is answered locally with an error naming the client option or call
//                  to use instead; it never reaches the server.
#pragma once

#include <string>
#include <vector>

namespace redistp::client {

enum class CommandClass { kPlain, kArrayCapable, kMulti, kExec, kDiscard, kRefused };

// Classifies `argv` (argv[0] is the command name, any case). For kRefused, `*why` gets the
// error text to answer with.
CommandClass ClassifyCommand(const std::vector<std::string>& argv, std::string* why);

}  // namespace redistp::client
