// The scripting family of the generator: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT
// LOAD/EXISTS/FLUSH/KILL over a corpus of small Lua scripts (see generator.h).
//
// The corpus. Each script is written for one purpose and declares what it wants: the kinds of
// its keys (string keys, or one of the aggregate pools, so that scripts run on the data the other
// families build and WRONGTYPE happens), the kinds of its arguments (values, integers, scores,
// JSON texts, packed bytes ...), whether it writes (then EVAL_RO of it must be refused) and the
// Lua library it needs. Together they cover redis.call of every family, redis.pcall and Lua's
// pcall around failing calls, every Lua type as a reply (fractions, nested tables with holes,
// {ok=}, {err=}, booleans, nil), redis.setresp(3) with maps, sets and doubles, cjson, bit, struct
// and cmsgpack, string.format, math.random, loops, runtime and compile errors, the sandbox
// (global creation, readonly tables) and shebangs with flags. A list of one-line expressions
// (`return <expr>`) adds the reply-conversion and error edge cases cheaply. Issue 20's shapes:
// metatables on returned tables (never run: Redis reads a reply raw), `_G` and the library tables
// inside replies, error objects of every type Redis survives, the read-only tables' wrapped
// functions with bad arguments and redis.call with ~8000 arguments through unpack.
//
// Determinism. The stream compares replies byte for byte, so no script may depend on what two
// correct servers may legitimately answer differently: no TIME, RANDOMKEY, SPOP, SRANDMEMBER,
// CLIENT ID, tostring() of a table or function (an address), collectgarbage; replies whose order
// is a hash table's (SMEMBERS, HKEYS of a big key) are sorted in Lua first; a RESP3 map or set
// from a command is returned as such only when the script has just built it with one element
// (the encoding thresholds may be set as low as 0, so even three elements may be a hash table
// whose order differs between two Redis processes), and sorted otherwise. Lua's own table
// order is the same on both sides: both servers link Debian's Lua 5.1, whose string hash has no
// seed. math.random is deterministic: one rand48 generator per process, seeded at start and
// advanced by every script, which the runner puts back in its first state on every reset
// (runner.cc). Every loop is bounded and small, every TTL far in the future (generator.h).
//
// The script cache. EVAL caches its script as SCRIPT LOAD does, so SCRIPT EXISTS and EVALSHA
// depend on the stream's history, which both servers share; the runner sends SCRIPT FLUSH on
// every reset (runner.cc) so that replays start from an empty cache. SHAs are computed here
// (Sha1Hex) so that the stream stays a pure function of the seed.
//
// Libraries. A script that needs cjson, bit, struct or cmsgpack is drawn only when our server
// has that library (main.cc probes it at start and warns when one is missing), so a build
// without one still runs the rest of the corpus.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "generator.h"

namespace difftest {

namespace {

using Argv = std::vector<std::string>;

// One script of the corpus. `keys` and `args` spell the kinds of KEYS[i] and ARGV[i], one
// character each (see Generator::ScriptKey and Generator::ScriptArg); '*' is 0..3 of the default
// kind.
struct Script {
  const char* body;
  const char* keys;
  const char* args;
  bool writes;
  const char* lib;  // the Lua library the script needs, or nullptr
};

const std::vector<Script>& Corpus() {
  static const std::vector<Script> corpus = {
      // ---- redis.call over the families ------------------------------------------------------
      {"return redis.call('GET', KEYS[1])", "k", "", false, nullptr},
      {"return redis.call('SET', KEYS[1], ARGV[1])", "k", "v", true, nullptr},
      {"return redis.call('INCRBY', KEYS[1], ARGV[1])", "k", "i", true, nullptr},
      {"if redis.call('GET', KEYS[1]) == ARGV[1] then\n"
       "  return redis.call('DEL', KEYS[1])\n"
       "else\n"
       "  return 0\n"
       "end",
       "k", "v", true, nullptr},
      {"local v = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])\n"
       "return {v, tonumber(v)}",
       "k", "f", true, nullptr},
      {"redis.call('SET', KEYS[1], ARGV[1], 'EX', 100000)\n"
       "return {redis.call('TTL', KEYS[1]) > 99000, redis.call('PERSIST', KEYS[1]),\n"
       "        redis.call('TTL', KEYS[1])}",
       "k", "v", true, nullptr},
      {"redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])\n"
       "local fields = redis.call('HKEYS', KEYS[1])\n"
       "table.sort(fields)\n"
       "local out = {}\n"
       "for i = 1, math.min(#fields, 8) do\n"
       "  out[#out + 1] = fields[i]\n"
       "  out[#out + 1] = redis.call('HGET', KEYS[1], fields[i])\n"
       "end\n"
       "return out",
       "h", "hv", true, nullptr},
      {"redis.call('RPUSH', KEYS[1], unpack(ARGV))\n"
       "return redis.call('LRANGE', KEYS[1], 0, 9)",
       "l", "*", true, nullptr},
      {"local m = redis.call('SMEMBERS', KEYS[1])\n"
       "table.sort(m)\n"
       "local out = {}\n"
       "for i = 1, math.min(#m, 12) do out[i] = m[i] end\n"
       "return {#m, out}",
       "s", "", false, nullptr},
      {"redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])\n"
       "return redis.call('ZRANGE', KEYS[1], 0, 4, 'WITHSCORES')",
       "z", "sm", true, nullptr},
      {"return {redis.call('ZCARD', KEYS[1]), redis.call('ZSCORE', KEYS[1], ARGV[1]),\n"
       "        redis.call('ZRANK', KEYS[1], ARGV[1])}",
       "z", "m", false, nullptr},
      {"return redis.call('MGET', unpack(KEYS))", "*", "", false, nullptr},
      {"return redis.call('EXISTS', unpack(KEYS))", "*", "", false, nullptr},
      {"return redis.call('COPY', KEYS[1], KEYS[2], 'REPLACE')", "kk", "", true, nullptr},
      {"return {redis.call('TYPE', KEYS[1]), redis.call('OBJECT', 'ENCODING', KEYS[1])}", "k", "",
       false, nullptr},
      {"redis.call('SELECT', ARGV[1])\n"
       "return {redis.call('DBSIZE'), redis.call('EXISTS', KEYS[1])}",
       "k", "d", false, nullptr},
      {"return redis.call('PUBLISH', 'chan:a', ARGV[1])", "", "v", false, nullptr},
      {"return redis.call('BLPOP', KEYS[1], 0)", "l", "", true, nullptr},
      {"local n = 0\n"
       "for i = 1, 20 do n = n + redis.call('INCR', KEYS[1]) end\n"
       "return n",
       "k", "", true, nullptr},
      {"redis.call('DEL', KEYS[1])\n"
       "for i = 1, 12 do redis.call('RPUSH', KEYS[1], i * ARGV[1]) end\n"
       "return {redis.call('LLEN', KEYS[1]), redis.call('LINDEX', KEYS[1], -1)}",
       "l", "i", true, nullptr},
      {"return {redis.call('HINCRBYFLOAT', KEYS[1], ARGV[1], ARGV[2]), redis.call('HLEN', "
       "KEYS[1])}",
       "h", "hf", true, nullptr},
      {"return redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT')", "ll", "", true, nullptr},
      {"local s = redis.call('ZINCRBY', KEYS[1], ARGV[1], ARGV[2])\nreturn {s, type(s)}", "z", "sm",
       true, nullptr},
      {"return redis.call('SINTERCARD', 2, KEYS[1], KEYS[2])", "ss", "", false, nullptr},
      {"return redis.call('SORT', KEYS[1], 'LIMIT', 0, 5, 'ALPHA')", "l", "", false, nullptr},
      {"redis.call('SETRANGE', KEYS[1], tonumber(ARGV[1]) % 64, 'xyz')\n"
       "return redis.call('GETRANGE', KEYS[1], 0, -1)",
       "k", "i", true, nullptr},
      {"return redis.call('LCS', KEYS[1], KEYS[2])", "kk", "", false, nullptr},
      {"return redis.call('GETEX', KEYS[1], 'PERSIST')", "k", "", true, nullptr},
      {"return redis.call('LPOS', KEYS[1], ARGV[1])", "l", "v", false, nullptr},
      {"redis.call('ZUNIONSTORE', KEYS[1], 2, KEYS[2], KEYS[3])\n"
       "return redis.call('ZRANGE', KEYS[1], 0, 5, 'WITHSCORES')",
       "zzz", "", true, nullptr},
      // ---- errors from calls, caught or not ----------------------------------------------------
      {"return redis.pcall('INCR', KEYS[1])", "k", "", true, nullptr},
      {"local r = redis.pcall('LPUSH', KEYS[1], ARGV[1])\n"
       "if type(r) == 'table' and r.err then return 'caught: ' .. r.err end\n"
       "return r",
       "k", "v", true, nullptr},
      {"local ok, e = pcall(redis.call, 'HGET', KEYS[1], 'f1')\n"
       "return {ok and 1 or 0, type(e)}",
       "k", "", false, nullptr},
      {"return redis.call('HGET', KEYS[1], ARGV[1])", "k", "h", false, nullptr},
      {"return redis.call('GET', KEYS[1], KEYS[2])", "kk", "", false, nullptr},
      {"return redis.call('SET', KEYS[1], ARGV[1])", "", "v", true, nullptr},
      // ---- RESP3 inside the script -----------------------------------------------------------
      {"redis.setresp(3)\n"
       "local s = redis.call('ZSCORE', KEYS[1], ARGV[1])\n"
       "if type(s) == 'table' then return {s.double, s} end\n"
       "return s",
       "z", "m", false, nullptr},
      {"redis.setresp(3)\n"
       "redis.call('DEL', KEYS[1])\n"
       "redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])\n"
       "return redis.call('HGETALL', KEYS[1])",
       "h", "hv", true, nullptr},
      {"redis.setresp(3)\n"
       "local m = redis.call('HGETALL', KEYS[1])\n"
       "local names = {}\n"
       "for k in pairs(m.map) do names[#names + 1] = k end\n"
       "table.sort(names)\n"
       "local out = {}\n"
       "for i = 1, math.min(#names, 6) do out[#out + 1] = names[i]; out[#out + 1] = "
       "m.map[names[i]] end\n"
       "return {#names, out}",
       "h", "", false, nullptr},
      {"redis.setresp(3)\n"
       "redis.call('DEL', KEYS[1])\n"
       "redis.call('SADD', KEYS[1], ARGV[1])\n"
       "return redis.call('SMEMBERS', KEYS[1])",
       "s", "v", true, nullptr},
      {"redis.setresp(3)\n"
       "local s = redis.call('SMEMBERS', KEYS[1])\n"
       "local members = {}\n"
       "for k, v in pairs(s.set) do members[#members + 1] = k .. '=' .. tostring(v) end\n"
       "table.sort(members)\n"
       "return {#members, members[1], members[#members]}",
       "s", "", false, nullptr},
      {"redis.setresp(3)\n"
       "return redis.call('ZRANGE', KEYS[1], 0, 2, 'WITHSCORES')",
       "z", "", false, nullptr},
      {"redis.setresp(3)\n"
       "return {map = {a = 1, b = {1, 2}, c = {double = 0.5}}, x = 1}",
       "", "", false, nullptr},
      {"redis.setresp(3)\n"
       "return {set = {x = true, y = true, [ARGV[1]] = true}}",
       "", "v", false, nullptr},
      {"redis.setresp(3)\n"
       "local t = redis.call('HMGET', KEYS[1], 'f1', 'f2')\n"
       "return {t[1] == false, t[1] == nil, t}",
       "h", "", false, nullptr},
      {"return {double = tonumber(ARGV[1]) or 0.1}", "", "f", false, nullptr},
      // ---- libraries ---------------------------------------------------------------------------
      {"return cjson.encode({1, 2.5, 'x', {a = ARGV[1]}, true})", "", "v", false, "cjson"},
      {"return cjson.decode(ARGV[1])", "", "j", false, "cjson"},
      {"return cjson.encode(cjson.decode(ARGV[1]))", "", "j", false, "cjson"},
      {"return {bit.band(tonumber(ARGV[1]) or 0, 0xff), bit.bor(1, 2), bit.bxor(5, 3),\n"
       "        bit.lshift(1, 40), bit.tohex(65535), bit.bnot(0), bit.arshift(-256, 4),\n"
       "        bit.tobit(2^32 + 5), bit.rol(1, 33), bit.bswap(1)}",
       "", "i", false, "bit"},
      {"return struct.pack(ARGV[1], 1, 2, 3)", "", "t", false, "struct"},
      {"return {struct.unpack(ARGV[1], ARGV[2])}", "", "tp", false, "struct"},
      {"return {struct.size('>iIhHbBlLdf'), struct.pack('>I2i4c3', 258, -1, 'abc'),\n"
       "        struct.unpack('<h', struct.pack('<h', -2))}",
       "", "", false, "struct"},
      {"return cmsgpack.pack({1, 2.5, 'x', true, {a = 1}}, -1, 2^40, ARGV[1])", "", "v", false,
       "cmsgpack"},
      {"return {cmsgpack.unpack(ARGV[1])}", "", "p", false, "cmsgpack"},
      {"return {cmsgpack.unpack(cmsgpack.pack(1, 'two', {3, {4}}, -0.5, 2^63))}", "", "", false,
       "cmsgpack"},
      {"return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 1)}", "", "", false, "cmsgpack"},
      // ---- the standard libraries ------------------------------------------------------------
      {"return string.format('%d %s %5.2f %x %q %g', 42, ARGV[1], 3.14159, 255, 'a\\nb', 1e300)",
       "", "v", false, nullptr},
      {"return {string.format('%.17g', 0.1), tostring(1/3), tostring(1e100), tostring(-0.0),\n"
       "        string.rep(ARGV[1], 3, ','), string.upper(ARGV[1]), #ARGV[1]}",
       "", "v", false, nullptr},
      {"local t = {}\n"
       "for i = 1, 5 do t[i] = math.random(1000) end\n"
       "t[6] = math.floor(math.random() * 1e9)\n"
       "return t",
       "", "", false, nullptr},
      {"math.randomseed(tonumber(ARGV[1]) or 7)\n"
       "return {math.random(10), math.random(5, 50), math.floor(math.random() * 1e6)}",
       "", "i", false, nullptr},
      {"return {math.floor(-2.5), math.ceil(2.1), math.max(3, 9, 1), math.fmod(7, 3),\n"
       "        math.abs(-4), tostring(math.pi), math.huge > 0, math.sqrt(16)}",
       "", "", false, nullptr},
      {"local parts = {}\n"
       "local i = 0\n"
       "while i < 10 do i = i + 1; parts[#parts + 1] = tostring(i * 1.5) end\n"
       "table.insert(parts, 1, 'start')\n"
       "return table.concat(parts, '|')",
       "", "", false, nullptr},
      {"local t = {}\n"
       "local c = t\n"
       "for i = 1, 8 do c[1] = i; c[2] = {}; c = c[2] end\n"
       "return t",
       "", "", false, nullptr},
      {"return {#KEYS, #ARGV, KEYS, ARGV}", "*", "*", false, nullptr},
      {"return loadstring('return 1 + ' .. ARGV[1])()", "", "i", false, nullptr},
      // ---- the sandbox -------------------------------------------------------------------------
      {"x = 5\nreturn x", "", "", false, nullptr},
      {"local t = nil\nreturn t.x", "", "", false, nullptr},
      {"setmetatable(_G, nil)\nreturn 1", "", "", false, nullptr},
      {"string.upper = nil\nreturn 1", "", "", false, nullptr},
      {"rawset(_G, 'y', 1)\nreturn y", "", "", false, nullptr},
      {"local ok, e = pcall(function() undefined_name = 1 end)\nreturn {ok and 1 or 0, e}", "", "",
       false, nullptr},
      {"error('boom')", "", "", false, nullptr},
      {"error({err = 'CUSTOM raised as a table'})", "", "", false, nullptr},
      {"error()", "", "", false, nullptr},
      // ---- issue 20: the read-only globals, many arguments, library tables in replies ---------
      {"local g = getmetatable(_G)\ng.__index = {}\nreturn 1", "", "", false, nullptr},
      {"local g = getmetatable(_G)\nrawset(g, '__index', nil)\nreturn 1", "", "", false, nullptr},
      {"redis = function() return 1 end", "", "", false, nullptr},
      {"_G = {}", "", "", false, nullptr},
      {"redis.call = function() return 1 end", "", "", false, nullptr},
      {"getmetatable('').__index = {}", "", "", false, nullptr},
      {"os.x = 1", "", "", false, nullptr},
      {"print('x')", "", "", false, nullptr},
      {"return loadfile('x')", "", "", false, nullptr},
      {"dofile('x')", "", "", false, nullptr},
      {"cjson.encode = function() return 1 end", "", "", false, "cjson"},
      {"cmsgpack.pack = function() return 1 end", "", "", false, "cmsgpack"},
      {"bit.band = function() return 1 end", "", "", false, "bit"},
      {"struct.pack = function() return 1 end", "", "", false, "struct"},
      {"return {map = cjson}", "", "", false, "cjson"},
      {"return {set = bit}", "", "", false, "bit"},
      {"return {map = struct}", "", "", false, "struct"},
      {"return {map = cmsgpack}", "", "", false, "cmsgpack"},
      {"return cjson.encode(setmetatable({1}, {__index = function() error('j') end}))", "", "",
       false, "cjson"},
      {"return cmsgpack.unpack(cmsgpack.pack(setmetatable({1, 2}, {__len = function() error('m') "
       "end})))",
       "", "", false, "cmsgpack"},
      {"local t = {}\nfor i = 1, 7999 do t[i] = KEYS[1] end\nreturn redis.call('DEL', unpack(t))",
       "k", "", true, nullptr},
      {"local t = {}\nfor i = 1, 7997 do t[i] = KEYS[1] end\nreturn #redis.call('MGET', unpack(t))",
       "k", "", false, nullptr},
      {"local t = {}\nfor i = 1, 7995 do t[i] = 'x' end\nreturn redis.pcall('ECHO', unpack(t))", "",
       "", false, nullptr},
      // ---- compile errors ----------------------------------------------------------------------
      {"retrun 1", "", "", false, nullptr},
      {"return (", "", "", false, nullptr},
      {"local = 5", "", "", false, nullptr},
      {"end", "", "", false, nullptr},
      {"", "", "", false, nullptr},
      // ---- shebangs ----------------------------------------------------------------------------
      {"#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])", "k", "", false, nullptr},
      {"#!lua flags=no-writes\nreturn redis.call('SET', KEYS[1], 'x')", "k", "", true, nullptr},
      {"#!lua\nreturn redis.call('SET', KEYS[1], ARGV[1])", "k", "v", true, nullptr},
      {"#!lua flags=allow-oom,allow-stale,no-cluster\nreturn #KEYS", "*", "", false, nullptr},
      {"#!lua flags=allow-cross-slot-keys\nreturn redis.call('MSET', KEYS[1], 'a', KEYS[2], 'b')",
       "kk", "", true, nullptr},
      {"#!lua flags=\nreturn 1", "", "", false, nullptr},
      {"#!lua flags=no-writes,no-writes\nreturn 1", "", "", false, nullptr},
      {"#!lua name=x\nreturn 1", "", "", false, nullptr},
      {"#!lua flags=bad\nreturn 1", "", "", false, nullptr},
      {"#!notlua\nreturn 1", "", "", false, nullptr},
      {"#!lua  flags=no-writes\nreturn 1", "", "", false, nullptr},
      {"#!lua", "", "", false, nullptr},
  };
  return corpus;
}

// One-line scripts, sent as `return <expr>` with one string key and one value: the reply
// conversion and the error paths, cheaply.
const std::vector<const char*> kExpressions = {
    "nil",
    "false",
    "true",
    "0",
    "-0.5",
    "3.99",
    "-3.7",
    "1e15 + 0.5",
    "2^53",
    "1e20",
    "-1e20",
    "0/0",
    "math.huge",
    "'text'",
    "''",
    "{}",
    "{{}}",
    "{1, nil, 3}",
    "{1, {2, nil, 4}, 'x'}",
    "{1, 2, x = 3}",
    "{x = 3}",
    "{1.9, -1.9, true, false, 'z'}",
    "{ok = 'fine'}",
    "{ok = ''}",
    "{err = 'E1 one'}",
    "{err = 'no code here'}",
    "{err = ''}",
    "{1, {err = 'ERR nested'}, {ok = 'nested'}}",
    "{ok = 'a', err = 'E both'}",
    "redis.error_reply('E2 two')",
    "redis.error_reply('no code')",
    "redis.status_reply('FINE')",
    "{double = 1.5}",
    "{map = {a = 1}}",
    "{set = {a = true}}",
    "{big_number = '123456789012345678901234567890'}",
    "#KEYS",
    "KEYS",
    "ARGV",
    "ARGV[1]",
    "redis.REDIS_VERSION",
    "redis.REDIS_VERSION_NUM",
    "redis.sha1hex(ARGV[1])",
    "redis.sha1hex('')",
    "redis.setresp(3)",
    "redis.setresp(4)",
    "redis.setresp()",
    "redis.call()",
    "redis.call('NOSUCHCOMMAND')",
    "redis.call('GET')",
    "redis.call('GET', nil)",
    "redis.call('GET', {})",
    "redis.call('GET', 1.5)",
    "redis.call('EVAL', 'return 1', 0)",
    "redis.call('SUBSCRIBE', 'c')",
    "redis.call('MULTI')",
    "redis.call('WATCH', KEYS[1])",
    "redis.call('SCRIPT', 'FLUSH')",
    "redis.pcall('NOSUCHCOMMAND')",
    "redis.pcall('GET')",
    "redis.call('PING')",
    "redis.call('PING', ARGV[1])",
    "redis.call('ECHO', ARGV[1])",
    "redis.call('DBSIZE')",
    "redis.call('TYPE', KEYS[1])",
    "redis.call('STRLEN', KEYS[1])",
    "redis.call('EXPIRE', KEYS[1], 100000)",
    "redis.call('DEL', KEYS[1])",
    "redis.call('SETNX', KEYS[1], ARGV[1])",
    "redis.call('APPEND', KEYS[1], ARGV[1])",
    "redis.log(redis.LOG_WARNING, 'from a script')",
    "redis.log(redis.LOG_DEBUG)",
    "redis.set_repl(redis.REPL_ALL)",
    "redis.set_repl(99)",
    "redis.replicate_commands()",
    "redis.breakpoint()",
    "redis.debug('x')",
    "undefined_global",
    "nil + 1",
    "#nil",
    "tonumber(ARGV[1])",
    "tostring(tonumber(ARGV[1]))",
    "type(ARGV[2])",
    "string.sub(ARGV[1], 2, 4)",
    "select('#', 1, 2, 3)",
    "unpack({1, 2, 3})",
    "next({})",
    "table.getn({1, 2})",
    // ---- issue 20: returned tables are read raw, metamethods never run -----------------------
    "_G",
    "{false, {{{{}}}}, _G}",
    "setmetatable({}, {__index = function(t, k) return 'x' end})",
    "{1, 2, setmetatable({}, {__index = function(t, k) return 'y' end})}",
    "setmetatable({[1.5] = 1}, {__index = function() error('x') end})",
    "setmetatable({}, {__index = function() foo() end})",
    "{1, setmetatable({}, {__len = function() error('l') end})}",
    "{map = {a = setmetatable({}, {__index = function() error('x') end})}}",
    "setmetatable({ok = 'o'}, {__index = function() error('o') end})",
    "{verbatim_string = {format = 1, string = 'x'}, 7}",
    "{verbatim_string = {format = 'txt'}, map = {b = 1}}",
    "{double = 1.5, big_number = '2'}",
    "{ok = 'o', err = 5}",
    // replies nested to the conversion's stack limit and one level past it (one slot per array
    // level, three per map or set level, as Redis counts them)
    "(function() local t = {} for i = 1, 7994 do t = {t} end return t end)()",
    "(function() local t = {} for i = 1, 7995 do t = {t} end return t end)()",
    "(function() local t = 1 for i = 1, 2665 do t = {set = {[t] = true}} end return t end)()",
    "(function() local t = {} for i = 1, 2665 do t = {map = {a = t}} end return t end)()",
    "(function() local t = 1 for i = 1, 1999 do t = {map = {[t] = 1}} end return t end)()",
    // the globals and the library tables inside replies (the globals' names sorted: the global
    // table's own order differs, KNOWN-DIFFERENCES.md)
    "{map = redis}",
    "{map = string}",
    "{map = math}",
    "{map = table}",
    "{set = coroutine}",
    "{map = getmetatable('')}",
    "getmetatable(_G)",
    "{1, redis, {string}}",
    "(function() local r = {} for k in pairs(_G) do r[#r + 1] = k end table.sort(r) return r "
    "end)()",
    // error objects of every type Redis 7.0.15 survives (KNOWN-DIFFERENCES.md lists the others)
    "error(1)",
    "error(1.5)",
    "error(nil)",
    "error(true)",
    "error({err = 5})",
    "error({err = 'a\\r\\nb'})",
    "error(_G)",
    "error(redis)",
    "error(string)",
    "error(getmetatable(''))",
    "error(setmetatable({}, {__newindex = error}))",
    "error(setmetatable({err = 'q'}, {__newindex = function() error('n') end}))",
    "error(setmetatable({err = 'q'}, {__newindex = function(t, k, v) rawset(t, k, v) end}))",
    "error(setmetatable({err = 'q'}, {__index = function() return 'zz' end}))",
    "{pcall(error, {err = 'x'})}",
    "{pcall(error, setmetatable({}, {__index = function() return 'zz' end}))}",
    "{pcall(error, setmetatable({}, {__index = function() error('ii') end}))}",
    "{pcall(error, {})}",
    "{pcall(error)}",
    "{pcall()}",
    "pcall()",
    "{coroutine.resume(coroutine.create(function() error({err = 'x'}) end))}",
    "{coroutine.resume(coroutine.create(function() error({}) end))}",
    // the read-only tables' wrapped functions, with bad arguments
    "table.insert(nil, 1)",
    "table.concat({1, {}})",
    "pairs(nil)",
    "ipairs(nil)",
    "rawget(nil)",
    "next({}, 'x')",
    "#unpack({}, 1, 7999)",
    "rawset(_G)",
    "rawset(_G, nil, 1)",
    "setmetatable(_G, 5)",
    "setmetatable(_G, {})",
    "setmetatable(getmetatable(''), {})",
    "table.insert(_G)",
    "table.insert(_G, 'a', 1)",
    "table.insert(_G, 1, 2, 3)",
    "table.insert(string, 1, 1)",
    "table.remove(_G, 'x')",
    "table.remove(redis)",
    "table.sort(_G, 5)",
    "table.sort(_G)",
    "table.setn({}, 1)",
    "table.setn(_G, 1)",
    "table.getn(redis)",
    "table.maxn(_G)",
    "table.foreach(redis, function() end)",
    "unpack(redis)",
    "rawget(redis, 'call') ~= nil",
    "getmetatable('').__index == string",
    "rawequal(_G, _G._G)",
    "getmetatable(getmetatable(_G))",
};

// Arguments of the library scripts.
const std::vector<std::string> kJsonTexts = {"[1,2,3]",
                                             "{\"a\":1}",
                                             "\"s\"",
                                             "1.5",
                                             "null",
                                             "junk",
                                             "[1,[2,[3]]]",
                                             "true",
                                             "[]",
                                             "{}",
                                             "[1.25,-0.5,1e3]",
                                             "[\"a\",null,\"b\"]",
                                             "",
                                             "[1,2",
                                             "{\"a\":[1,{\"b\":2}]}",
                                             "12345678901234567890",
                                             "\"\\u00e9\\n\"",
                                             "[true,false]"};
// struct formats for struct.pack(fmt, 1, 2, 3), valid and not. Not "c2": a number packed as a
// too-short string makes Redis 7.0.15 crash now and then (SIGSEGV in lua_pushstring while it
// raises "string too short"; seed 20261128 near #78180), see KNOWN-DIFFERENCES.md.
const std::vector<std::string> kStructFormats = {">I2", "<i4",    "bBh", "HhL", ">i8", "<d",  "f",
                                                 "c1",  "!4 i b", "x i", "s",   "I3",  "i17", "<>i",
                                                 "q",   "",       "i0",  "c0",  "Ii",  ">l<l"};
// Packed bytes: msgpack payloads and raw binary for unpack.
const std::vector<std::string> kPacked = {
    std::string("\x93\x01\x02\x03", 4),
    std::string("\x81\xa1"
                "a\x01",
                4),
    std::string("\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00", 9),
    std::string("\xc0", 1),
    std::string("\xc3\xc2", 2),
    std::string("\xa5hello", 6),
    std::string("\xcd\x01\x00", 3),
    std::string("\xd0\x80", 2),
    std::string("\x92\x91\x01\x90", 4),
    std::string("\xc1", 1),
    std::string("\xdc\x00", 2),
    std::string("\x00\x01\x02\x03\x04\x05\x06\x07\x08", 9),
    "",
    "abcd",
    std::string("\xff\xff\xff\xff", 4),
};

constexpr const char* kUnknownSha = "ffffffffffffffffffffffffffffffffffffffff";

uint32_t Rotl(uint32_t v, int n) { return (v << n) | (v >> (32 - n)); }

}  // namespace

// SHA-1 (FIPS 180-4) of `data`, in lower-case hex: the name EVAL gives a script.
std::string Sha1Hex(const std::string& data) {
  uint32_t h[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
  std::string m = data;
  uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  m.push_back(static_cast<char>(0x80));
  while (m.size() % 64 != 56) m.push_back('\0');
  for (int i = 7; i >= 0; --i) m.push_back(static_cast<char>((bits >> (i * 8)) & 0xff));
  for (size_t block = 0; block < m.size(); block += 64) {
    uint32_t w[80];
    for (int i = 0; i < 16; ++i) {
      const auto* p = reinterpret_cast<const unsigned char*>(m.data() + block + 4 * i);
      w[i] = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
    }
    for (int i = 16; i < 80; ++i) w[i] = Rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; ++i) {
      uint32_t f, k;
      if (i < 20) {
        f = (b & c) | (~b & d), k = 0x5A827999u;
      } else if (i < 40) {
        f = b ^ c ^ d, k = 0x6ED9EBA1u;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDCu;
      } else {
        f = b ^ c ^ d, k = 0xCA62C1D6u;
      }
      uint32_t t = Rotl(a, 5) + f + e + k + w[i];
      e = d, d = c, c = Rotl(b, 30), b = a, a = t;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
  }
  char hex[41];
  for (int i = 0; i < 5; ++i) std::snprintf(hex + 8 * i, 9, "%08x", h[i]);
  return std::string(hex, 40);
}

// A key of kind `kind` (a character of Script::keys).
std::string Generator::ScriptKey(char kind) {
  switch (kind) {
    case 'h':
      return AggKey("hash");
    case 'l':
      return AggKey("list");
    case 's':
      return AggKey("set");
    case 'z':
      return AggKey("zset");
    default:
      return Key();
  }
}

// An argument of kind `kind` (a character of Script::args).
std::string Generator::ScriptArg(char kind) {
  switch (kind) {
    case 'i':
      return Int();
    case 'f':
      return Float();
    case 's':
      return Score();
    case 'm':
      return ZMember();
    case 'h':
      return Field();
    case 'd':
      return Db();
    case 'j':
      return rng_.Pick(kJsonTexts);
    case 't':
      return rng_.Pick(kStructFormats);
    case 'p':
      return rng_.Pick(kPacked);
    default:
      return AnyValue();
  }
}

// Picks a script the server can run (its library present): the corpus two times in three, an
// expression otherwise. `writes` tells whether it writes (when known).
std::string Generator::PickScript(std::string& keys, std::string& args, bool& writes) {
  if (rng_.Percent(35)) {
    keys = "k";
    args = "v";
    writes = false;
    return std::string("return ") + rng_.Pick(kExpressions);
  }
  for (;;) {
    const Script& s = rng_.Pick(Corpus());
    if (s.lib != nullptr && !HasLuaLibrary(s.lib)) continue;  // cjson and bit cannot both miss
    keys = s.keys;
    args = s.args;
    writes = s.writes;
    return s.body;
  }
}

bool Generator::HasLuaLibrary(const std::string& name) const {
  for (const auto& l : lua_libs_) {
    if (l == name) return true;
  }
  return false;
}

// numkeys, the keys and the arguments a script asks for; now and then a wrong numkeys (too many,
// negative, not a number) or one key fewer or more than it expects.
void Generator::ScriptKeysAndArgs(const std::string& keys, const std::string& args, Argv& argv) {
  Argv k;
  Argv a;
  auto expand = [&](const std::string& spec, Argv& out, bool key) {
    for (char c : spec) {
      if (c == '*') {
        for (int i = 0, n = static_cast<int>(rng_.Range(0, 3)); i < n; ++i) {
          out.push_back(key ? Key() : AnyValue());
        }
      } else {
        out.push_back(key ? ScriptKey(c) : ScriptArg(c));
      }
    }
  };
  expand(keys, k, true);
  expand(args, a, false);
  uint64_t r = rng_.Below(100);
  if (r < 4 && !k.empty()) {
    k.pop_back();
  } else if (r < 7) {
    k.push_back(Key());
  }
  std::string numkeys = std::to_string(k.size());
  if (rng_.Percent(4)) {
    numkeys = rng_.Pick(std::vector<std::string>{"-1", "abc", "", "1.5", "9223372036854775808",
                                                 std::to_string(k.size() + a.size() + 1)});
  }
  argv.push_back(numkeys);
  argv.insert(argv.end(), k.begin(), k.end());
  argv.insert(argv.end(), a.begin(), a.end());
}

std::vector<std::string> Generator::ScriptCommand() {
  std::string keys;
  std::string args;
  bool writes = false;
  std::string body = PickScript(keys, args, writes);
  Argv argv;
  uint64_t r = rng_.Below(100);
  bool has_ro = Has("eval_ro") && Has("evalsha_ro");
  if (r < 58 || (r < 72 && !has_ro)) {
    argv = {Token("EVAL"), body};
  } else if (r < 72) {
    // The read-only forms, more often on scripts that write (refused).
    std::string name = rng_.Percent(writes ? 70 : 40) ? "EVAL_RO" : "EVALSHA_RO";
    argv = {Token(name), name == "EVAL_RO" ? body : Sha1Hex(body)};
  } else if (r < 86) {
    argv = {Token("EVALSHA"), Sha1Hex(body)};
    if (rng_.Percent(10)) {
      std::string& sha = argv[1];
      for (auto& c : sha) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  } else if (r < 89) {
    argv = {Token("EVALSHA"),
            rng_.Pick(std::vector<std::string>{kUnknownSha, "abc", "", Sha1Hex(body).substr(0, 39),
                                               Sha1Hex(body) + "0", "return 1"})};
  } else {
    return ScriptAdminCommand(body);
  }
  ScriptKeysAndArgs(keys, args, argv);
  if (rng_.Percent(2)) argv.resize(argv.size() > 2 ? 2 : 1);  // no numkeys: arity
  return argv;
}

// SCRIPT LOAD, EXISTS, FLUSH, KILL and a few malformed ones, about `body` when they take a script.
std::vector<std::string> Generator::ScriptAdminCommand(const std::string& body) {
  uint64_t r = rng_.Below(100);
  if (r < 40) return {"SCRIPT", Token("LOAD"), body};
  if (r < 75) {
    Argv a = {"SCRIPT", Token("EXISTS")};
    for (int i = 0, n = static_cast<int>(rng_.Range(1, 4)); i < n; ++i) {
      std::string keys, args;
      bool writes = false;
      uint64_t which = rng_.Below(10);
      std::string sha = which < 6   ? Sha1Hex(PickScript(keys, args, writes))
                        : which < 8 ? Sha1Hex(body)
                                    : rng_.Pick(std::vector<std::string>{kUnknownSha, "abc", ""});
      if (rng_.Percent(10)) {
        for (auto& c : sha) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      }
      a.push_back(sha);
    }
    return a;
  }
  if (r < 82) {
    Argv a = {"SCRIPT", Token("FLUSH")};
    uint64_t m = rng_.Below(10);
    if (m < 3) a.push_back(Token("ASYNC"));
    if (m >= 3 && m < 6) a.push_back(Token("SYNC"));
    if (m == 6) a.push_back("NOW");
    if (m == 7) a.insert(a.end(), {"SYNC", "ASYNC"});
    return a;
  }
  if (r < 90) return {"SCRIPT", Token("KILL")};
  switch (rng_.Below(5)) {
    case 0:
      return {"SCRIPT", Token("LOAD")};
    case 1:
      return {"SCRIPT", Token("LOAD"), body, "extra"};
    case 2:
      return {"SCRIPT", Token("EXISTS")};
    case 3:
      return {"SCRIPT", "NOSUCH"};
    default:
      return {"SCRIPT", Token("KILL"), "now"};
  }
}

void Generator::ScriptBlock(int conn, std::vector<Step>& out) {
  if (rng_.Percent(10) && Has("script|load")) {
    // The way clients use the cache: load, then call by SHA.
    std::string keys, args;
    bool writes = false;
    std::string body = PickScript(keys, args, writes);
    out.push_back({conn, {"SCRIPT", "LOAD", body}});
    Argv call = {rng_.Percent(80) || !Has("evalsha_ro") ? "EVALSHA" : "EVALSHA_RO", Sha1Hex(body)};
    ScriptKeysAndArgs(keys, args, call);
    out.push_back({conn, call});
    return;
  }
  out.push_back({conn, ScriptCommand()});
}

}  // namespace difftest
