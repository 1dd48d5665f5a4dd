// Command classification for push/reply demultiplexing (see command_class.h).
#include "client/command_class.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <unordered_set>

#include "client/errors.h"

namespace redistp::client {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Commands whose reply is never push-shaped. A command missing here is merely treated with
// more care (kArrayCapable), never misread, so the list errs on the short side.
const std::unordered_set<std::string_view>& PlainCommands() {
  static const std::unordered_set<std::string_view> kPlain = {
      // strings and bits
      "get", "set", "setnx", "setex", "psetex", "getset", "getdel", "getex", "append", "strlen",
      "incr", "decr", "incrby", "decrby", "incrbyfloat", "getrange", "setrange", "substr", "setbit",
      "getbit", "bitcount", "bitpos", "bitop", "lcs", "mset", "msetnx",
      // keys
      "del", "unlink", "exists", "type", "touch", "expire", "pexpire", "expireat", "pexpireat",
      "ttl", "pttl", "expiretime", "pexpiretime", "persist", "rename", "renamenx", "move", "copy",
      "randomkey", "dump", "restore", "scan", "sscan", "hscan", "zscan",
      // temporary keys
      "settp", "bsettp", "deltp",
      // lists, sets, hashes, sorted sets, streams: scalar replies and two-element pops
      "lpush", "rpush", "lpushx", "rpushx", "llen", "lindex", "lset", "linsert", "lrem", "ltrim",
      "lmove", "blmove", "rpoplpush", "brpoplpush", "blpop", "brpop", "sadd", "srem", "scard",
      "sismember", "smove", "hset", "hsetnx", "hmset", "hget", "hdel", "hlen", "hexists", "hincrby",
      "hincrbyfloat", "hstrlen", "zadd", "zrem", "zcard", "zscore", "zrank", "zrevrank", "zincrby",
      "zcount", "zlexcount", "bzpopmin", "bzpopmax", "xadd", "xlen", "xdel", "xtrim", "pfadd",
      "pfcount", "pfmerge", "publish",
      // nested replies ([key, [elements]], stream entries): elements are arrays, not bulks.
      // Blocking ones must also stay out of the MULTI wrapper, where they would not block.
      "blmpop", "bzmpop", "lmpop", "zmpop", "xread", "xreadgroup", "xrange", "xrevrange",
      // server and connection
      "ping", "echo", "dbsize", "flushdb", "flushall", "swapdb", "info", "time", "lastsave", "save",
      "bgsave", "bgrewriteaof", "wait", "watch", "unwatch", "object", "client", "config",
      "shutdown"};
  return kPlain;
}

// Commands the client refuses, with what to use instead.
struct Refusal {
  std::string_view name;
  std::string_view instead;
};
constexpr Refusal kRefusals[] = {
    {"select", "set ClientOptions::db"},
    {"auth", "set ClientOptions::user/password"},
    {"hello", "the client speaks RESP2 only"},
    {"reset", "use Client::Close() and a new Client"},
    {"quit", "use Client::Close()"},
    {"watchex", "use Client::Watch()"},
    {"unwatchex", "use Client::Unwatch()"},
    {"subscribe", "Pub/Sub needs a connection of its own"},
    {"psubscribe", "Pub/Sub needs a connection of its own"},
    {"ssubscribe", "Pub/Sub needs a connection of its own"},
    {"unsubscribe", "Pub/Sub needs a connection of its own"},
    {"punsubscribe", "Pub/Sub needs a connection of its own"},
    {"sunsubscribe", "Pub/Sub needs a connection of its own"},
    {"monitor", "MONITOR needs a connection of its own"},
    {"sync", "replication needs a connection of its own"},
    {"psync", "replication needs a connection of its own"},
};

}  // namespace

CommandClass ClassifyCommand(const std::vector<std::string>& argv, std::string* why) {
  if (argv.empty()) {
    *why = kErrEmptyCommand;
    return CommandClass::kRefused;
  }
  const std::string name = Lower(argv[0]);
  for (const Refusal& r : kRefusals) {
    if (name == r.name) {
      *why = std::string(kErrRefusedPrefix) + name +
             "' is managed by the client: " + std::string(r.instead);
      return CommandClass::kRefused;
    }
  }
  if (name == "client" && argv.size() > 1 && Lower(argv[1]) == "reply") {
    *why = std::string(kErrRefusedPrefix) +
           "client reply' is managed by the client: every command gets its reply";
    return CommandClass::kRefused;
  }
  if (name == "multi") return CommandClass::kMulti;
  if (name == "exec") return CommandClass::kExec;
  if (name == "discard") return CommandClass::kDiscard;
  // CONFIG GET answers name/value pairs (an even count), never three elements; the other
  // CONFIG, CLIENT and OBJECT subcommands answer scalars, bulks or status lines.
  if (PlainCommands().count(name) > 0) return CommandClass::kPlain;
  return CommandClass::kArrayCapable;
}

}  // namespace redistp::client
