// The command table the generator draws from, read from OUR server at start with COMMAND INFO
// and COMMAND DOCS: names (subcommands as "container|sub"), arity, flags, key positions and the
// argument trees with their tokens. Nothing here is hard-coded, so a command another helper adds
// to redis-tp is exercised (or must be listed in the policy table) without touching the tester.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "resp.h"

namespace difftest {

// One node of a COMMAND DOCS argument tree.
struct ArgSpec {
  std::string name;
  std::string type;   // key, string, integer, double, pattern, unix-time, pure-token, oneof, block
  std::string token;  // the literal that precedes the value ("EX"), or empty
  bool optional = false;
  bool multiple = false;
  bool multiple_token = false;
  std::string since;          // set when the argument is newer than its command ("7.2.0")
  std::vector<ArgSpec> args;  // oneof / block children
};

// True when an argument's `since` names a version after Redis 7.0.x, the reference: the
// generator never sends such an argument (ZRANK's WITHSCORE, BITOP's DIFF ...), because Redis
// 7.0 refuses it where redis-tp answers it.
bool NewerThanReference(const std::string& since);

struct CommandSpec {
  std::string name;                // lower case; "client|setname" for a subcommand
  std::vector<std::string> words;  // what to send first: {"CLIENT", "SETNAME"} or {"GET"}
  int arity = 0;                   // Redis's convention: negative means "at least -arity"
  std::set<std::string> flags;
  int first_key = 0, last_key = 0, key_step = 0;
  bool has_docs = false;
  std::vector<ArgSpec> args;
  bool has_subcommands = false;
};

class CommandTable {
 public:
  // Reads COMMAND INFO and COMMAND DOCS over `conn`. Returns false with `error` set on failure.
  bool Load(Connection& conn, std::string& error);
  // Every command and subcommand (containers with subcommands are not themselves sendable).
  const std::vector<CommandSpec>& commands() const { return commands_; }
  const CommandSpec* Find(const std::string& name) const;
  // True when `name` (lower case) is a container with subcommands.
  bool IsContainer(const std::string& name) const { return containers_.count(name) != 0; }

 private:
  std::vector<CommandSpec> commands_;
  std::map<std::string, size_t> index_;
  std::set<std::string> containers_;
};

// Looks up `key` in a RESP3 map or a RESP2 flat array of pairs; nullptr when absent.
const Value* FindField(const Value& pairs, const std::string& key);

}  // namespace difftest
