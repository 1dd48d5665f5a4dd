// The aggregate families of the generator: hashes, lists, sets, sorted sets, SORT, blocking
// commands and CONFIG SET of the encoding thresholds (see generator.h). Every command is sent
// only when our command table has it, so the stream degrades to the other families on a build
// without them.
#include <algorithm>
#include <string>
#include <vector>

#include "generator.h"

using namespace std::string_literals;

namespace difftest {

namespace {

using Argv = std::vector<std::string>;

// The families' own keys: most commands of a type stay on its keys so aggregates grow, a few use
// the keys shared by every aggregate type (or the string keys), so WRONGTYPE happens.
const std::vector<std::string> kHashKeys = {"h:a", "h:a", "h:b", "h:c"};
const std::vector<std::string> kListKeys = {"l:a", "l:a", "l:b", "l:c"};
const std::vector<std::string> kSetKeys = {"s:a", "s:a", "s:b", "s:c", "s:i"};
const std::vector<std::string> kZSetKeys = {"z:a", "z:a", "z:b", "z:c"};
const std::vector<std::string> kSharedKeys = {"agg:x", "agg:y"};
// The sorted set whose members all have score 0, for lex ranges (see policy.h, kLexRange).
const char* const kLexKey = "z:lex";

const std::vector<std::string> kFields = {"f1", "f2", "f3", "f4", "f5", "1", "2", "", "name", "F1"};
const std::vector<std::string> kMembers = {"m1", "m2", "m3", "a", "b", "c", "", "x y", "M1"};
const std::vector<std::string> kScores = {
    "0",     "1",   "2",    "3",      "-1",   "1.5", "-2.5", "10", "1e3",
    "-inf",  "inf", "+inf", "1e308",  "-0",   "nan", "abc",  "",   "0x10",
    "1e400", "3.0", " 1",   "5e-324", "-1e3", "7",   "100",  "(1", "1.0000000000000002"};
const std::vector<std::string> kLexBounds = {"-",   "+",   "[a",  "(a", "[b", "(c",
                                             "[m1", "(m2", "[",   "(",  "a",  "[z",
                                             "+a",  "-a",  "[M1", "[f", "[",  "[x y"};

std::string LongText(uint64_t n) {
  return std::string(65 + n % 20, static_cast<char>('p' + n % 4));
}

}  // namespace

const std::vector<EncodingThreshold>& EncodingThresholds() {
  static const std::vector<EncodingThreshold> t = {
      {"hash-max-listpack-entries", "512"},
      {"hash-max-listpack-value", "64"},
      {"set-max-intset-entries", "512"},
      {"zset-max-listpack-entries", "128"},
      {"zset-max-listpack-value", "64"},
      {"list-max-listpack-size", "-2"},
      {"list-compress-depth", "0"},
      // Issue 11: the sparse HLL's limit, and streams with small nodes from every reset on.
      {"hll-sparse-max-bytes", "3000"},
      {"stream-node-max-entries", "100", "5"},
      {"stream-node-max-bytes", "4096"},
  };
  return t;
}

bool FamilyOnly(const std::string& name) {
  // Every stream command (their names start with x): the generic walk would send `*` ids, BLOCK
  // and idle thresholds that race the clock (gen_streams.cc).
  if (!name.empty() && name[0] == 'x') return true;
  static const std::vector<std::string> names = {
      "spop",           "blpop",    "brpop",    "brpoplpush", "blmove",
      "blmpop",         "bzpopmin", "bzpopmax", "bzmpop",     "config|set",
      "zremrangebylex", "eval",     "evalsha",  "eval_ro",    "evalsha_ro"};
  return std::find(names.begin(), names.end(), name) != names.end();
}

// ---- pools -------------------------------------------------------------------------------------

std::string Generator::AggKey(const char* type) {
  uint64_t r = rng_.Below(100);
  if (r < 10) return Key();
  if (r < 22) return rng_.Pick(kSharedKeys);
  std::string t = type;
  if (t == "hash") return rng_.Pick(kHashKeys);
  if (t == "list") return rng_.Pick(kListKeys);
  if (t == "set") return rng_.Pick(kSetKeys);
  return rng_.Pick(kZSetKeys);
}

std::string Generator::Field() {
  uint64_t r = rng_.Below(100);
  if (r < 80) return rng_.Pick(kFields);
  if (r < 86) return LongText(rng_.Next());
  if (r < 93) return "f" + std::to_string(rng_.Range(6, 40));
  return AnyValue();
}

// Set members: integers (intsets), non-canonical numbers (strings that look like integers),
// short strings, now and then a long one.
std::string Generator::Member() {
  uint64_t r = rng_.Below(100);
  if (r < 45) return std::to_string(rng_.Range(-3, 25));
  if (r < 52) {
    return rng_.Pick(std::vector<std::string>{"9223372036854775807", "-9223372036854775808",
                                              "9223372036854775808", "01", "-0", "+1", "1.0", " 1",
                                              "4294967296", "65536", "-32769"});
  }
  if (r < 90) return rng_.Pick(kMembers);
  if (r < 95) return LongText(rng_.Next());
  return AnyValue();
}

std::string Generator::ZMember() {
  uint64_t r = rng_.Below(100);
  if (r < 85) return rng_.Pick(kMembers);
  if (r < 90) return LongText(rng_.Next());
  if (r < 95) return std::to_string(rng_.Range(0, 9));
  return AnyValue();
}

std::string Generator::Score() {
  if (rng_.Percent(60)) return std::to_string(rng_.Range(-3, 10));
  return rng_.Pick(kScores);
}

std::string Generator::ScoreBound() {
  uint64_t r = rng_.Below(100);
  if (r < 20) return rng_.Pick(std::vector<std::string>{"-inf", "+inf", "inf", "(-inf", "(+inf"});
  std::string s = Score();
  if (r < 45) return "(" + s;
  return s;
}

std::string Generator::LexBound() { return rng_.Pick(kLexBounds); }

std::string Generator::Index() {
  uint64_t r = rng_.Below(100);
  if (r < 75) return std::to_string(rng_.Range(-6, 6));
  if (r < 90) return std::to_string(rng_.Range(-200, 200));
  return rng_.Pick(std::vector<std::string>{"9223372036854775807", "-9223372036854775808",
                                            "9223372036854775808", "abc", "", "1.5", "-0",
                                            "4294967296"});
}

std::string Generator::Count() {
  uint64_t r = rng_.Below(100);
  if (r < 70) return std::to_string(rng_.Range(0, 6));
  if (r < 80) return std::to_string(rng_.Range(-4, -1));
  if (r < 90) return std::to_string(rng_.Range(7, 700));
  return rng_.Pick(std::vector<std::string>{"abc", "", "1.5", "9223372036854775807",
                                            "-9223372036854775808", "4294967296", "-0"});
}

// A blocking timeout that never hangs: inside MULTI nothing blocks, so anything goes; outside,
// a few milliseconds, or an invalid value (refused before blocking).
std::string Generator::Timeout() {
  if (in_multi_ && rng_.Percent(30)) return "0";
  if (rng_.Percent(88)) return rng_.Pick(std::vector<std::string>{"0.01", "0.001", "0.02"});
  return rng_.Pick(std::vector<std::string>{"-1", "abc", "inf", "nan", "1e30", "-0.5", "",
                                            "9223372036854775807"});
}

void Generator::NumKeysAnd(const char* type, Argv& argv) {
  int n = static_cast<int>(rng_.Range(1, 3));
  uint64_t r = rng_.Below(100);
  if (r < 90) {
    argv.push_back(std::to_string(n));
  } else {
    argv.push_back(rng_.Pick(std::vector<std::string>{"0", "-1", "abc", "5", "100"}));
  }
  for (int i = 0; i < n; ++i) argv.push_back(AggKey(type));
}

// ---- hashes ------------------------------------------------------------------------------------

std::vector<std::string> Generator::HashFamily() {
  Argv a;
  std::string k = AggKey("hash");
  switch (rng_.Below(20)) {
    case 0:
    case 1:
    case 2: {
      a = {rng_.Percent(85) ? "HSET" : "HMSET", k};
      int n = rng_.Percent(4) ? static_cast<int>(rng_.Range(100, 600)) : 1 + rng_.Below(3);
      for (int i = 0; i < n; ++i) {
        a.push_back(n > 10 ? "bulk" + std::to_string(i) : Field());
        a.push_back(rng_.Percent(5) ? LongText(rng_.Next()) : AnyValue());
      }
      break;
    }
    case 3:
      a = {"HSETNX", k, Field(), AnyValue()};
      break;
    case 4:
      a = {"HGET", k, Field()};
      break;
    case 5:
      a = {"HMGET", k, Field(), Field()};
      break;
    case 6:
      a = {"HDEL", k, Field()};
      if (rng_.Percent(40)) a.push_back(Field());
      break;
    case 7:
      a = {rng_.Pick(std::vector<std::string>{"HLEN", "HGETALL", "HKEYS", "HVALS"}), k};
      break;
    case 8:
      a = {"HGETALL", k};
      break;
    case 9:
      a = {"HSTRLEN", k, Field()};
      break;
    case 10:
      a = {"HEXISTS", k, Field()};
      break;
    case 11:
      a = {"HINCRBY", k, Field(), Int()};
      break;
    case 12:
      a = {"HINCRBYFLOAT", k, Field(), Float()};
      break;
    case 13:
    case 14:
      a = {"HRANDFIELD", k};
      if (rng_.Percent(70)) a.push_back(Count());
      if (a.size() == 3 && rng_.Percent(50)) a.push_back(Token("WITHVALUES"));
      break;
    case 15:
      a = {"HSCAN", k, rng_.Percent(85) ? "0" : Int()};
      if (rng_.Percent(30)) a.insert(a.end(), {Token("MATCH"), Pattern()});
      if (rng_.Percent(30)) a.insert(a.end(), {Token("COUNT"), Count()});
      break;
    default:
      a = {"HSET", k, Field(), std::to_string(rng_.Range(-5, 100))};
      break;
  }
  return a;
}

// ---- lists -------------------------------------------------------------------------------------

std::vector<std::string> Generator::ListFamily() {
  Argv a;
  std::string k = AggKey("list");
  auto side = [&]() { return Token(rng_.Percent(50) ? "LEFT" : "RIGHT"); };
  switch (rng_.Below(22)) {
    case 0:
    case 1:
    case 2: {
      a = {rng_.Pick(std::vector<std::string>{"LPUSH", "RPUSH", "RPUSH", "LPUSHX", "RPUSHX"}), k};
      int n = rng_.Percent(4) ? static_cast<int>(rng_.Range(100, 400)) : 1 + rng_.Below(4);
      for (int i = 0; i < n; ++i) a.push_back(rng_.Percent(6) ? LongText(rng_.Next()) : Member());
      break;
    }
    case 3:
      a = {rng_.Percent(50) ? "LPOP" : "RPOP", k};
      if (rng_.Percent(40)) a.push_back(Count());
      break;
    case 4:
    case 5:
      a = {"LRANGE", k, Index(), Index()};
      break;
    case 6:
      a = {"LINDEX", k, Index()};
      break;
    case 7:
      a = {"LSET", k, Index(), Member()};
      break;
    case 8:
      a = {"LLEN", k};
      break;
    case 9:
      a = {"LREM", k, std::to_string(rng_.Range(-3, 3)), Member()};
      break;
    case 10:
      a = {"LTRIM", k, Index(), Index()};
      break;
    case 11:
      a = {"LINSERT", k, Token(rng_.Percent(50) ? "BEFORE" : "AFTER"), Member(), Member()};
      if (rng_.Percent(5)) a[2] = "MIDDLE";
      break;
    case 12:
      a = {"LPOS", k, Member()};
      if (rng_.Percent(40)) a.insert(a.end(), {Token("RANK"), Index()});
      if (rng_.Percent(40)) a.insert(a.end(), {Token("COUNT"), Count()});
      if (rng_.Percent(30)) a.insert(a.end(), {Token("MAXLEN"), Count()});
      break;
    case 13:
      a = {"LMOVE", k, AggKey("list"), side(), side()};
      break;
    case 14:
      a = {"RPOPLPUSH", k, AggKey("list")};
      break;
    case 15:
      a = {"LMPOP"};
      NumKeysAnd("list", a);
      a.push_back(side());
      if (rng_.Percent(50)) a.insert(a.end(), {Token("COUNT"), Count()});
      break;
    default:
      a = {"RPUSH", k, Member()};
      break;
  }
  return a;
}

// ---- sets --------------------------------------------------------------------------------------

std::vector<std::string> Generator::SetFamily() {
  Argv a;
  std::string k = AggKey("set");
  switch (rng_.Below(22)) {
    case 0:
    case 1:
    case 2:
    case 3: {
      a = {"SADD", k};
      int n = rng_.Percent(4) ? static_cast<int>(rng_.Range(100, 600)) : 1 + rng_.Below(4);
      bool ints = k == "s:i" || rng_.Percent(30);
      for (int i = 0; i < n; ++i) {
        a.push_back(n > 10 ? std::to_string(ints ? i * 3 : i) + (ints ? "" : "x")
                    : ints ? std::to_string(rng_.Range(-5, 40))
                           : Member());
      }
      break;
    }
    case 4:
      a = {"SREM", k, Member()};
      if (rng_.Percent(40)) a.push_back(Member());
      break;
    case 5:
      a = {"SCARD", k};
      break;
    case 6:
      a = {"SISMEMBER", k, Member()};
      break;
    case 7:
      a = {"SMISMEMBER", k, Member(), Member()};
      break;
    case 8:
    case 9:
      a = {"SMEMBERS", k};
      break;
    case 10:
    case 11:
      a = {rng_.Pick(std::vector<std::string>{"SINTER", "SUNION", "SDIFF"}), k};
      for (int i = 0, n = static_cast<int>(rng_.Below(3)); i < n; ++i) a.push_back(AggKey("set"));
      break;
    case 12:
      a = {rng_.Pick(std::vector<std::string>{"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"}),
           AggKey("set"), k};
      for (int i = 0, n = static_cast<int>(rng_.Below(3)); i < n; ++i) a.push_back(AggKey("set"));
      break;
    case 13:
      a = {"SINTERCARD"};
      NumKeysAnd("set", a);
      if (rng_.Percent(40)) a.insert(a.end(), {Token("LIMIT"), Count()});
      break;
    case 14:
      a = {"SMOVE", k, AggKey("set"), Member()};
      break;
    case 15:
    case 16:
      a = {"SRANDMEMBER", k};
      if (rng_.Percent(70)) a.push_back(Count());
      break;
    case 17:
      a = {"SSCAN", k, rng_.Percent(85) ? "0" : Int()};
      if (rng_.Percent(30)) a.insert(a.end(), {Token("MATCH"), Pattern()});
      if (rng_.Percent(30)) a.insert(a.end(), {Token("COUNT"), Count()});
      break;
    default:
      a = {"SADD", k, Member()};
      break;
  }
  return a;
}

// ---- sorted sets -------------------------------------------------------------------------------

std::vector<std::string> Generator::ZSetFamily() {
  Argv a;
  std::string k = AggKey("zset");
  auto withscores = [&](Argv& v) {
    if (rng_.Percent(40)) v.push_back(Token("WITHSCORES"));
  };
  auto limit = [&](Argv& v) {
    if (rng_.Percent(30)) v.insert(v.end(), {Token("LIMIT"), Index(), Count()});
  };
  auto setop_options = [&](Argv& v, size_t numkeys_at) {
    size_t n = 0;
    const std::string& nk = v[numkeys_at];
    if (!nk.empty() && nk.find_first_not_of("0123456789") == std::string::npos && nk.size() < 3) {
      n = std::stoul(nk);
    }
    if (rng_.Percent(30)) {
      v.push_back(Token("WEIGHTS"));
      for (size_t i = 0; i < std::max<size_t>(n, 1); ++i) v.push_back(Score());
    }
    if (rng_.Percent(30)) {
      v.insert(v.end(), {Token("AGGREGATE"),
                         rng_.Pick(std::vector<std::string>{"SUM", "MIN", "MAX", "max", "AVG"})});
    }
  };
  switch (rng_.Below(34)) {
    case 0:
    case 1:
    case 2:
    case 3: {
      a = {"ZADD", k};
      if (rng_.Percent(25)) a.push_back(Token(rng_.Percent(50) ? "NX" : "XX"));
      if (rng_.Percent(20)) a.push_back(Token(rng_.Percent(50) ? "GT" : "LT"));
      if (rng_.Percent(20)) a.push_back(Token("CH"));
      if (rng_.Percent(10)) a.push_back(Token("INCR"));
      int n = rng_.Percent(4) ? static_cast<int>(rng_.Range(100, 300)) : 1 + rng_.Below(3);
      for (int i = 0; i < n; ++i) {
        a.push_back(n > 10 ? std::to_string(i % 17) : Score());
        a.push_back(n > 10 ? "bulk" + std::to_string(i) : ZMember());
      }
      break;
    }
    case 4:
      a = {"ZINCRBY", k, Score(), ZMember()};
      break;
    case 5:
      a = {"ZSCORE", k, ZMember()};
      break;
    case 6:
      a = {"ZMSCORE", k, ZMember(), ZMember()};
      break;
    case 7:
      a = {"ZCARD", k};
      break;
    case 8:
      a = {"ZCOUNT", k, ScoreBound(), ScoreBound()};
      break;
    case 9:
      a = {"ZLEXCOUNT", rng_.Percent(75) ? kLexKey : k, LexBound(), LexBound()};
      break;
    case 10:
    case 11: {
      uint64_t by = rng_.Below(3);
      a = {"ZRANGE", k};
      if (by == 0) {
        a.insert(a.end(), {Index(), Index()});
      } else if (by == 1) {
        a.insert(a.end(), {ScoreBound(), ScoreBound(), Token("BYSCORE")});
      } else {
        if (rng_.Percent(75)) a[1] = kLexKey;
        a.insert(a.end(), {LexBound(), LexBound(), Token("BYLEX")});
      }
      if (rng_.Percent(30)) a.push_back(Token("REV"));
      if (by != 0 || rng_.Percent(10)) limit(a);
      if (by != 2 || rng_.Percent(10)) withscores(a);
      break;
    }
    case 12:
      a = {rng_.Percent(50) ? "ZRANGEBYSCORE" : "ZREVRANGEBYSCORE", k, ScoreBound(), ScoreBound()};
      withscores(a);
      limit(a);
      break;
    case 13:
      a = {rng_.Percent(50) ? "ZRANGEBYLEX" : "ZREVRANGEBYLEX", rng_.Percent(75) ? kLexKey : k,
           LexBound(), LexBound()};
      limit(a);
      break;
    case 14:
      a = {"ZREVRANGE", k, Index(), Index()};
      withscores(a);
      break;
    case 15:
      a = {rng_.Percent(50) ? "ZRANK" : "ZREVRANK", k, ZMember()};
      break;
    case 16:
      a = {"ZREM", k, ZMember()};
      if (rng_.Percent(30)) a.push_back(ZMember());
      break;
    case 17:
      switch (rng_.Below(3)) {
        case 0:
          a = {"ZREMRANGEBYSCORE", k, ScoreBound(), ScoreBound()};
          break;
        case 1:
          a = {"ZREMRANGEBYRANK", k, Index(), Index()};
          break;
        default:  // a write: on the one-score key only
          a = {"ZREMRANGEBYLEX", kLexKey, LexBound(), LexBound()};
          break;
      }
      break;
    case 18:
      a = {"ZRANGESTORE", AggKey("zset"), k};
      if (rng_.Percent(50)) {
        a.insert(a.end(), {Index(), Index()});
      } else {
        a.insert(a.end(), {ScoreBound(), ScoreBound(), Token("BYSCORE")});
        limit(a);
      }
      break;
    case 19:
    case 20:
      a = {rng_.Percent(50) ? "ZPOPMIN" : "ZPOPMAX", k};
      if (rng_.Percent(40)) a.push_back(Count());
      break;
    case 21:
      a = {"ZMPOP"};
      NumKeysAnd("zset", a);
      a.push_back(Token(rng_.Percent(50) ? "MIN" : "MAX"));
      if (rng_.Percent(50)) a.insert(a.end(), {Token("COUNT"), Count()});
      break;
    case 22:
    case 23:
      a = {"ZRANDMEMBER", k};
      if (rng_.Percent(70)) a.push_back(Count());
      if (a.size() == 3 && rng_.Percent(50)) a.push_back(Token("WITHSCORES"));
      break;
    case 24:
    case 25: {
      a = {rng_.Pick(std::vector<std::string>{"ZUNION", "ZINTER", "ZDIFF"})};
      NumKeysAnd(rng_.Percent(80) ? "zset" : "set", a);
      if (a[0] != "ZDIFF") setop_options(a, 1);
      withscores(a);
      break;
    }
    case 26: {
      a = {rng_.Pick(std::vector<std::string>{"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"}),
           AggKey("zset")};
      NumKeysAnd(rng_.Percent(80) ? "zset" : "set", a);
      if (a[0] != "ZDIFFSTORE") setop_options(a, 2);
      break;
    }
    case 27:
      a = {"ZINTERCARD"};
      NumKeysAnd("zset", a);
      if (rng_.Percent(40)) a.insert(a.end(), {Token("LIMIT"), Count()});
      break;
    case 28:
      a = {"ZSCAN", k, rng_.Percent(85) ? "0" : Int()};
      if (rng_.Percent(30)) a.insert(a.end(), {Token("MATCH"), Pattern()});
      if (rng_.Percent(30)) a.insert(a.end(), {Token("COUNT"), Count()});
      break;
    case 29:
    case 30: {
      // The one-score key: members at score 0 (a bulk add now and then, so it converts).
      a = {"ZADD", kLexKey};
      int n = rng_.Percent(5) ? static_cast<int>(rng_.Range(100, 200)) : 1 + rng_.Below(3);
      for (int i = 0; i < n; ++i) {
        a.insert(a.end(), {"0", n > 10 ? "lex" + std::to_string(i) : ZMember()});
      }
      break;
    }
    case 31:
      a = {rng_.Percent(70) ? "ZREM" : "ZCARD", kLexKey};
      if (a[0] == "ZREM") a.push_back(ZMember());
      break;
    default:
      a = {"ZADD", k, Score(), ZMember()};
      break;
  }
  return a;
}

// ---- SORT, thresholds, blocking ----------------------------------------------------------------

std::vector<std::string> Generator::SortCommand() {
  static const std::vector<std::string> kBy = {"nosort", "*",    "w_*",    "h:*->f1", "*->f1",
                                               "nokey",  "agg*", "h:a->*", "s:*"};
  static const std::vector<std::string> kGet = {"#", "*", "h:*->f1", "*->f2", "w_*", "#->x"};
  const char* type = rng_.Pick(std::vector<const char*>{"list", "set", "zset", "set"});
  Argv a = {rng_.Percent(80) ? "SORT" : "SORT_RO", AggKey(type)};
  bool by_pattern = false;
  if (rng_.Percent(40)) {
    a.insert(a.end(), {Token("BY"), rng_.Pick(kBy)});
    by_pattern = a.back() != "nosort";
  }
  if (rng_.Percent(30)) a.insert(a.end(), {Token("LIMIT"), Index(), Count()});
  for (int i = 0, n = rng_.Percent(30) ? static_cast<int>(rng_.Range(1, 2)) : 0; i < n; ++i) {
    a.insert(a.end(), {Token("GET"), rng_.Pick(kGet)});
  }
  if (rng_.Percent(30)) a.push_back(Token(rng_.Percent(50) ? "ASC" : "DESC"));
  // ALPHA with BY a pattern leaves ties (missing weights) in the order of the sort algorithm and
  // of the set's table, which is Redis's own; numeric ties are broken by the elements.
  if (!by_pattern && rng_.Percent(40)) a.push_back(Token("ALPHA"));
  // No STORE inside MULTI: the tester clears Redis's stale errno before a SORT outside MULTI
  // only (runner.h), and a refused SORT ... STORE would leave the destination different.
  if (a[0] == "SORT" && !in_multi_ && rng_.Percent(20)) {
    a.insert(a.end(), {Token("STORE"), AggKey("list")});
  }
  return a;
}

std::vector<std::string> Generator::ThresholdCommand() {
  // The list packed threshold is no config parameter: DEBUG sets it. Small values put the
  // generator's elements (LongText is 65..84 bytes) into plain nodes; "0" restores 1 GB.
  if (rng_.Percent(15)) {
    return {"DEBUG", "QUICKLIST-PACKED-THRESHOLD",
            rng_.Pick(std::vector<std::string>{"1b", "4", "70", "100", "0", "0"})};
  }
  const EncodingThreshold& t = rng_.Pick(EncodingThresholds());
  std::string name = t.name;
  std::string value;
  if (name == "list-max-listpack-size") {
    value = rng_.Pick(std::vector<std::string>{"1", "2", "3", "-1", "-2", "-5", "0", "-6"});
  } else if (name == "list-compress-depth") {
    value = rng_.Pick(std::vector<std::string>{"0", "1", "2"});
  } else if (name == "hll-sparse-max-bytes") {
    value = rng_.Pick(std::vector<std::string>{"0", "1", "100", "500", "3000", "3000", "20000"});
  } else if (name == "stream-node-max-entries") {
    value = rng_.Pick(std::vector<std::string>{"0", "1", "2", "3", "5", "5", "100"});
  } else if (name == "stream-node-max-bytes") {
    value = rng_.Pick(std::vector<std::string>{"0", "1", "64", "200", "4096", "4096"});
  } else {
    value = rng_.Pick(std::vector<std::string>{"0", "1", "2", "3", "4", "8", "16", "128",
                                               t.default_value, t.default_value});
  }
  return {"CONFIG", "SET", name, value};
}

std::vector<std::string> Generator::BlockingCommand() {
  auto side = [&](const char* a, const char* b) { return Token(rng_.Percent(50) ? a : b); };
  Argv v;
  switch (rng_.Below(8)) {
    case 0:
    case 1:
      v = {rng_.Percent(50) ? "BLPOP" : "BRPOP", AggKey("list")};
      if (rng_.Percent(40)) v.push_back(AggKey("list"));
      v.push_back(Timeout());
      break;
    case 2:
      v = {"BLMOVE", AggKey("list"), AggKey("list"), side("LEFT", "RIGHT"), side("LEFT", "RIGHT"),
           Timeout()};
      break;
    case 3:
      v = {"BRPOPLPUSH", AggKey("list"), AggKey("list"), Timeout()};
      break;
    case 4:
      v = {"BLMPOP", Timeout()};
      NumKeysAnd("list", v);
      v.push_back(side("LEFT", "RIGHT"));
      if (rng_.Percent(40)) v.insert(v.end(), {Token("COUNT"), Count()});
      break;
    case 5:
    case 6:
      v = {rng_.Percent(50) ? "BZPOPMIN" : "BZPOPMAX", AggKey("zset")};
      if (rng_.Percent(40)) v.push_back(AggKey("zset"));
      v.push_back(Timeout());
      break;
    default:
      v = {"BZMPOP", Timeout()};
      NumKeysAnd("zset", v);
      v.push_back(side("MIN", "MAX"));
      if (rng_.Percent(40)) v.insert(v.end(), {Token("COUNT"), Count()});
      break;
  }
  return v;
}

// One aggregate command that our server has (empty when the one drawn is missing).
std::vector<std::string> Generator::AggregateCommand() {
  uint64_t r = rng_.Below(100);
  Argv a;
  if (r < 22) {
    a = HashFamily();
  } else if (r < 44) {
    a = ListFamily();
  } else if (r < 66) {
    a = SetFamily();
  } else if (r < 92) {
    a = ZSetFamily();
  } else if (r < 95) {
    a = SortCommand();
  } else if (r < 97) {
    a = ThresholdCommand();
  } else {
    a = BlockingCommand();
  }
  std::string name = a[0];
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name == "config" || name == "debug") return a;
  if (!Has(name.c_str())) return {};
  return a;
}

// A command of the aggregate families, as a block: SPOP comes with the DEL that makes the two
// servers agree again, blocking commands are never mutated (a junk timeout of 0 would hang).
void Generator::AggregateBlock(int conn, std::vector<Step>& out) {
  if (rng_.Percent(3) && Has("spop")) {
    std::string k = AggKey("set");
    Argv pop = {"SPOP", k};
    if (rng_.Percent(50)) pop.push_back(Count());
    out.push_back({conn, pop});
    out.push_back({conn, {"DEL", k}});
    return;
  }
  Argv a = AggregateCommand();
  if (a.empty()) a = StringFamily();
  std::string name = a[0];
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool blocking = name[0] == 'b' && name != "bitcount" && name != "bitop" && name != "bitpos" &&
                  name != "bitfield" && name != "bitfield_ro";
  if (!blocking && name != "config" && rng_.Percent(7)) Mutate(a);
  out.push_back({conn, std::move(a)});
}

}  // namespace difftest
