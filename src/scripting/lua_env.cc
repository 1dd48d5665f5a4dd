// The scripts' Lua environment (model in lua_env.h).
#include "scripting/lua_env.h"

#include <malloc.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "scripting/lua_libs.h"
#include "scripting/script_engine.h"
#include "server/log.h"
#include "server/version.h"

extern "C" {
#include <lauxlib.h>
#include <lua-bitop.h>
#include <lua-cjson.h>
#include <lua.h>
#include <lualib.h>
}

namespace redistp {
namespace {

// Registry keys (addresses of these statics are unique light userdata).
char kRealGlobalsKey;
char kReadonlyMapKey;
char kRandStateKey;

constexpr const char* kReadonlyError = "Attempt to modify a readonly table";

ScriptEngine* EngineOf(lua_State* L) {
  return static_cast<ScriptEngine*>(lua_touserdata(L, lua_upvalueindex(1)));
}

// ---- read-only proxies ----------------------------------------------------------------------

// If the value at `idx` is a read-only proxy, replaces it with its table; returns whether it was.
bool UnwrapProxy(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE) return false;
  if (idx < 0) idx = lua_gettop(L) + idx + 1;
  lua_pushlightuserdata(L, &kReadonlyMapKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 2);
    return false;
  }
  lua_replace(L, idx);
  lua_pop(L, 1);
  return true;
}

// Raises {err = "ERR <msg>"}: Redis's helpers fail with an error table, so the script's error
// carries no "user_script:N:" position (Lua's own library errors do).
int RaiseError(lua_State* L, const char* msg) {
  PushErrorTable(L, msg, std::strlen(msg));
  return lua_error(L);
}

// Wrapper for functions that read a table raw: a proxy stands for its table.
int UnwrapFirstThenCall(lua_State* L) {
  UnwrapProxy(L, 1);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// Wrapper for functions that write a table raw: a proxy refuses. The error carries no
// position, as Redis's read-only check in the C function does not.
int RefuseProxyThenCall(lua_State* L) {
  if (UnwrapProxy(L, 1)) {
    lua_pushstring(L, kReadonlyError);
    return lua_error(L);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// Replaces table[name] (table at `idx`) by `wrapper` closed over the original.
void Wrap(lua_State* L, int idx, const char* name, lua_CFunction wrapper) {
  if (idx < 0) idx = lua_gettop(L) + idx + 1;
  lua_getfield(L, idx, name);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  lua_pushcclosure(L, wrapper, 1);
  lua_setfield(L, idx, name);
}

// Pushes a read-only proxy of the table at `idx` and records it in the proxy map.
void PushProxy(lua_State* L, int idx) {
  if (idx < 0) idx = lua_gettop(L) + idx + 1;
  lua_newtable(L);           // proxy
  lua_createtable(L, 0, 3);  // its metatable
  lua_pushvalue(L, idx);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, LuaReadonlyNewIndex);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);  // getmetatable(proxy) answers this; setmetatable refuses
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_pushlightuserdata(L, &kReadonlyMapKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, -2);
  lua_pushvalue(L, idx);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

// ---- the allocator: Lua's heap is counted apart ------------------------------------------------

// Lua's allocation function, keeping in *ud the bytes its blocks occupy (usable sizes, as the
// allocator's own statistics count them), so used_memory can leave the Lua heap out as Redis's
// does.
void* LuaAlloc(void* ud, void* ptr, size_t /*osize*/, size_t nsize) {
  auto* counter = static_cast<size_t*>(ud);
  if (ptr != nullptr) *counter -= malloc_usable_size(ptr);
  if (nsize == 0) {
    std::free(ptr);
    return nullptr;
  }
  void* p = std::realloc(ptr, nsize);
  if (p == nullptr) {
    // Lua keeps the old block when a reallocation fails: it is still counted.
    if (ptr != nullptr) *counter += malloc_usable_size(ptr);
    return nullptr;
  }
  *counter += malloc_usable_size(p);
  return p;
}

// ---- math.random: rand48 as Redis has it -------------------------------------------------------

// One rand48 step on the process's state (Server::script_rand_state); the top 31 bits.
int32_t NextRand48(uint64_t* x) {
  *x = (0x5DEECE66DULL * *x + 0xB) & ((1ULL << 48) - 1);
  return static_cast<int32_t>(*x >> 17);
}

uint64_t* RandOf(lua_State* L) {
  lua_pushlightuserdata(L, &kRandStateKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  auto* r = static_cast<uint64_t*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return r;
}

int MathRandom(lua_State* L) {
  constexpr double kMax = 2147483647.0;
  double r = static_cast<double>(NextRand48(RandOf(L)) % 2147483647) / kMax;
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, r);
      break;
    case 1: {
      int u = luaL_checkint(L, 1);
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushnumber(L, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      int l = luaL_checkint(L, 1);
      int u = luaL_checkint(L, 2);
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      lua_pushnumber(L, std::floor(r * (u - l + 1)) + l);
      break;
    }
    default:
      return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}

int MathRandomSeed(lua_State* L) {
  auto seed = static_cast<uint32_t>(luaL_checkint(L, 1));
  *RandOf(L) = (static_cast<uint64_t>(seed) << 16) | 0x330E;
  return 0;
}

// ---- loadstring: source text only -------------------------------------------------------------

int LoadString(lua_State* L) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  const char* chunkname = luaL_optstring(L, 2, s);
  if (len > 0 && s[0] == LUA_SIGNATURE[0]) {
    // Precompiled chunks could break the sandbox: refused, as Redis refuses them.
    lua_pushnil(L);
    lua_pushstring(L, "attempt to load a binary chunk");
    return 2;
  }
  if (luaL_loadbuffer(L, s, len, chunkname) != 0) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
  }
  return 1;
}

// ---- pcall: an error table becomes its text -------------------------------------------------

// Redis 7.0's pcall: like Lua's, except that an error raised as a table with a string `err`
// (redis.call's failures, redis.error_reply) is caught as that string.
int PCall(lua_State* L) {
  const int argc = lua_gettop(L);
  luaL_checkany(L, 1);
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  if (lua_pcall(L, argc - 1, LUA_MULTRET, 0) != 0) {
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1)) {
        lua_replace(L, -2);
      } else {
        lua_pop(L, 1);
      }
    }
    lua_pushboolean(L, 0);
    lua_replace(L, 1);
    lua_settop(L, 2);
  }
  return lua_gettop(L);
}

// ---- the error handler -------------------------------------------------------------------------

int ErrorHandler(lua_State* L) {
  lua_Debug ar;
  bool have = lua_getstack(L, 1, &ar) != 0 && lua_getinfo(L, "nSl", &ar) != 0;
  if (have && std::strcmp(ar.what, "C") == 0) {
    have = lua_getstack(L, 2, &ar) != 0 && lua_getinfo(L, "nSl", &ar) != 0;
  }
  if (lua_type(L, 1) != LUA_TTABLE) {
    // {err = "ERR " .. tostring(err)}
    lua_getglobal(L, "tostring");
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    std::string text = "ERR ";
    size_t len = 0;
    const char* s = lua_tolstring(L, -1, &len);
    if (s != nullptr) text.append(s, len);
    lua_pop(L, 1);
    lua_createtable(L, 0, 3);
    lua_pushlstring(L, text.data(), text.size());
    lua_setfield(L, -2, "err");
    lua_replace(L, 1);
  }
  if (have) {
    lua_pushstring(L, ar.source);
    lua_setfield(L, 1, "source");
    lua_pushinteger(L, ar.currentline);
    lua_setfield(L, 1, "line");
  }
  lua_settop(L, 1);
  return 1;
}

// ---- the redis table ---------------------------------------------------------------------------

int RedisCall(lua_State* L) { return EngineOf(L)->CallFromLua(L, true); }
int RedisPCall(lua_State* L) { return EngineOf(L)->CallFromLua(L, false); }

int RedisSha1Hex(lua_State* L) {
  if (lua_gettop(L) != 1) return RaiseError(L, "wrong number of arguments");
  size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  std::string hex = Sha1Hex(s != nullptr ? std::string_view(s, len) : std::string_view());
  lua_pushlstring(L, hex.data(), hex.size());
  return 1;
}

int RedisErrorReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    PushErrorTable(L, "-ERR wrong number or type of arguments", 38);
    return 1;
  }
  size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  std::string msg;
  if (len == 0 || s[0] != '-') msg.push_back('-');
  msg.append(s, len);
  PushErrorTable(L, msg.data(), msg.size());
  return 1;
}

int RedisStatusReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    PushErrorTable(L, "-ERR wrong number or type of arguments", 38);
    return 1;
  }
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "ok");
  return 1;
}

int RedisLog(lua_State* L) {
  int argc = lua_gettop(L);
  if (argc < 2) return RaiseError(L, "redis.log() requires two arguments or more.");
  if (!lua_isnumber(L, 1)) return RaiseError(L, "First argument must be a number (log level).");
  int level = static_cast<int>(lua_tonumber(L, 1));
  if (level < 0 || level > 3) return RaiseError(L, "Invalid debug level.");
  std::string line;
  for (int i = 2; i <= argc; ++i) {
    size_t len = 0;
    const char* s = lua_tolstring(L, i, &len);
    if (i > 2) line.push_back(' ');
    if (s != nullptr) line.append(s, len);
  }
  EngineOf(L)->server().log().Log(static_cast<LogLevel>(level), "%s", line.c_str());
  return 0;
}

int RedisSetResp(lua_State* L) {
  if (lua_gettop(L) != 1) return RaiseError(L, "redis.setresp() requires one argument.");
  int resp = static_cast<int>(lua_tonumber(L, 1));
  if (resp != 2 && resp != 3) return RaiseError(L, "RESP version must be 2 or 3.");
  ScriptRun* run = EngineOf(L)->running();
  if (run != nullptr) run->resp = resp;
  return 0;
}

int RedisSetRepl(lua_State* L) {
  ScriptRun* run = EngineOf(L)->running();
  if (run == nullptr) {
    return RaiseError(L, "redis.set_repl() can only be called inside a script invocation");
  }
  if (lua_gettop(L) != 1) return RaiseError(L, "redis.set_repl() requires two arguments.");  // sic
  int flags = static_cast<int>(lua_tonumber(L, 1));
  if ((flags & ~kReplAll) != 0) {
    return RaiseError(
        L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
  }
  run->repl = flags;
  return 0;
}

// Kept for old scripts: effects replication is the only mode, so it always "succeeds".
int RedisReplicateCommands(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}

// The debugger's entry points do nothing outside the debugger.
int RedisNoDebugger(lua_State* L) {
  lua_pushnil(L);
  return 1;
}

int RedisAclCheckCmd(lua_State* L) {
  int argc = lua_gettop(L);
  if (argc < 1)
    return RaiseError(L, "Please specify at least one argument for this redis lib call");
  size_t len = 0;
  const char* name = lua_tolstring(L, 1, &len);
  ScriptEngine* engine = EngineOf(L);
  const CommandSpec* spec =
      name != nullptr ? engine->server().commands().Find(std::string_view(name, len)) : nullptr;
  if (spec != nullptr && !spec->subcommands.empty() && argc >= 2) {
    size_t sub_len = 0;
    const char* sub = lua_tolstring(L, 2, &sub_len);
    spec = sub != nullptr ? spec->FindSubcommand(std::string_view(sub, sub_len)) : nullptr;
  }
  if (spec == nullptr) return RaiseError(L, "Invalid command passed to redis.acl_check_cmd()");
  // Without ACL users every connection may run every command.
  lua_pushboolean(L, 1);
  return 1;
}

void SetFunction(lua_State* L, const char* name, lua_CFunction f, ScriptEngine* engine) {
  lua_pushlightuserdata(L, engine);
  lua_pushcclosure(L, f, 1);
  lua_setfield(L, -2, name);
}

void SetNumber(lua_State* L, const char* name, lua_Number v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, name);
}

void PushRedisTable(lua_State* L, ScriptEngine* engine) {
  lua_newtable(L);
  SetFunction(L, "call", RedisCall, engine);
  SetFunction(L, "pcall", RedisPCall, engine);
  SetFunction(L, "log", RedisLog, engine);
  SetFunction(L, "sha1hex", RedisSha1Hex, engine);
  SetFunction(L, "error_reply", RedisErrorReply, engine);
  SetFunction(L, "status_reply", RedisStatusReply, engine);
  SetFunction(L, "setresp", RedisSetResp, engine);
  SetFunction(L, "set_repl", RedisSetRepl, engine);
  SetFunction(L, "replicate_commands", RedisReplicateCommands, engine);
  SetFunction(L, "breakpoint", RedisNoDebugger, engine);
  SetFunction(L, "debug", RedisNoDebugger, engine);
  SetFunction(L, "acl_check_cmd", RedisAclCheckCmd, engine);
  SetNumber(L, "LOG_DEBUG", 0);
  SetNumber(L, "LOG_VERBOSE", 1);
  SetNumber(L, "LOG_NOTICE", 2);
  SetNumber(L, "LOG_WARNING", 3);
  SetNumber(L, "REPL_NONE", kReplNone);
  SetNumber(L, "REPL_AOF", kReplAof);
  SetNumber(L, "REPL_SLAVE", kReplReplica);
  SetNumber(L, "REPL_REPLICA", kReplReplica);
  SetNumber(L, "REPL_ALL", kReplAll);
  lua_pushstring(L, kRedisVersion);
  lua_setfield(L, -2, "REDIS_VERSION");
  SetNumber(L, "REDIS_VERSION_NUM", kRedisVersionNum);
}

// Opens a library the luaopen_* way and stores the table it leaves as global `name`.
void OpenLibrary(lua_State* L, lua_CFunction open, const char* name) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 1);
  if (lua_istable(L, -1)) {
    lua_setglobal(L, name);
  } else {
    lua_pop(L, 1);
  }
}

}  // namespace

int LuaReadonlyNewIndex(lua_State* L) { return luaL_error(L, "%s", kReadonlyError); }

int LuaMissingGlobal(lua_State* L) {
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                    lua_tostring(L, 2) != nullptr ? lua_tostring(L, 2) : "?");
}

void PushProxiedTable(lua_State* L, int proxy_index) {
  if (lua_getmetatable(L, proxy_index) == 0) {
    lua_pushnil(L);
    return;
  }
  lua_getfield(L, -1, "__index");
  lua_remove(L, -2);
}

void SetGlobalsFallback(lua_State* L, int fallback_ref) {
  if (lua_getmetatable(L, LUA_GLOBALSINDEX) == 0) return;
  lua_rawgeti(L, LUA_REGISTRYINDEX, fallback_ref);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

void PushRealGlobals(lua_State* L) {
  lua_pushlightuserdata(L, &kRealGlobalsKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
}

void PushErrorHandler(lua_State* L) { lua_pushcfunction(L, ErrorHandler); }

void PushErrorTable(lua_State* L, const char* msg, size_t len) {
  std::string_view m(msg, len);
  std::string code = "ERR";
  std::string_view text = m;
  if (!m.empty() && m[0] == '-') {
    size_t sp = m.find(' ');
    if (sp == std::string_view::npos) {
      text = m.substr(1);
    } else {
      code.assign(m.substr(1, sp - 1));
      text = m.substr(sp + 1);
    }
  }
  while (!text.empty() && (text.back() == '\r' || text.back() == '\n')) text.remove_suffix(1);
  while (!text.empty() && (text.front() == '\r' || text.front() == '\n')) text.remove_prefix(1);
  std::string full = code;
  full.push_back(' ');
  full.append(text);
  lua_createtable(L, 0, 1);
  lua_pushlstring(L, full.data(), full.size());
  lua_setfield(L, -2, "err");
}

lua_State* NewScriptLuaState(ScriptEngine* engine, LuaStateKind kind) {
  lua_State* L = lua_newstate(LuaAlloc, &engine->server().script_heap_bytes());
  if (L == nullptr) return nullptr;
  lua_atpanic(L, [](lua_State* l) -> int {
    // Only reached for an error outside any protected call (never by design): report and stop.
    std::fprintf(stderr, "Lua panic: %s\n",
                 lua_tostring(l, -1) != nullptr ? lua_tostring(l, -1) : "?");
    std::abort();
  });
  const struct {
    const char* name;
    lua_CFunction open;
  } libs[] = {{"", luaopen_base},
              {LUA_TABLIBNAME, luaopen_table},
              {LUA_STRLIBNAME, luaopen_string},
              {LUA_MATHLIBNAME, luaopen_math}};
  for (const auto& lib : libs) {
    lua_pushcfunction(L, lib.open);
    lua_pushstring(L, lib.name);
    lua_call(L, 1, 0);
  }
  OpenLibrary(L, luaopen_cjson, "cjson");
  OpenLibrary(L, luaopen_bit, "bit");
  OpenLibrary(L, OpenLuaStruct, "struct");
  OpenLibrary(L, OpenLuaCmsgpack, "cmsgpack");

  // What Redis's scripts do not see.
  for (const char* hidden : {"print", "dofile", "loadfile", "getfenv", "setfenv", "newproxy"}) {
    lua_pushnil(L);
    lua_setglobal(L, hidden);
  }
  lua_pushcfunction(L, LoadString);
  lua_setglobal(L, "loadstring");
  lua_pushcfunction(L, PCall);
  lua_setglobal(L, "pcall");

  // math.random / math.randomseed on Redis's generator.
  lua_pushlightuserdata(L, &kRandStateKey);
  lua_pushlightuserdata(L, &engine->server().script_rand_state());
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_getglobal(L, LUA_MATHLIBNAME);
  lua_pushcfunction(L, MathRandom);
  lua_setfield(L, -2, "random");
  lua_pushcfunction(L, MathRandomSeed);
  lua_setfield(L, -2, "randomseed");
  lua_pop(L, 1);

  PushRedisTable(L, engine);
  lua_setglobal(L, "redis");
  lua_pushcfunction(L, ErrorHandler);
  lua_setglobal(L, "__redis__err__handler");
  (void)kind;

  // The read-only machinery: the proxy map, the wrappers, then a proxy for every library table,
  // the string metatable and the globals themselves.
  lua_pushlightuserdata(L, &kReadonlyMapKey);
  lua_newtable(L);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  const int g = lua_gettop(L);
  for (const char* f : {"rawget", "next", "pairs", "ipairs", "unpack", "getmetatable"}) {
    Wrap(L, g, f, UnwrapFirstThenCall);
  }
  for (const char* f : {"rawset", "setmetatable"}) Wrap(L, g, f, RefuseProxyThenCall);
  lua_getfield(L, g, LUA_TABLIBNAME);
  for (const char* f : {"concat", "getn", "maxn", "foreach", "foreachi"}) {
    Wrap(L, -1, f, UnwrapFirstThenCall);
  }
  for (const char* f : {"insert", "remove", "sort", "setn"}) Wrap(L, -1, f, RefuseProxyThenCall);
  lua_pop(L, 1);
  for (const char* lib : {LUA_TABLIBNAME, LUA_STRLIBNAME, LUA_MATHLIBNAME, LUA_COLIBNAME, "cjson",
                          "bit", "struct", "cmsgpack", "redis"}) {
    lua_getfield(L, g, lib);
    if (!lua_istable(L, -1)) {
      lua_pop(L, 1);
      continue;
    }
    PushProxy(L, -1);
    lua_setfield(L, g, lib);
    lua_pop(L, 1);
  }
  // The string metatable: getmetatable("") answers a proxy of it, and its __index is the
  // string table scripts see (the proxy), so getmetatable('').__index == string.
  lua_pushstring(L, "");
  if (lua_getmetatable(L, -1) != 0) {
    lua_getfield(L, g, LUA_STRLIBNAME);
    lua_setfield(L, -2, "__index");
    PushProxy(L, -1);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  // Missing globals raise; the globals' own metatable is out of reach (behind the proxy).
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, LuaMissingGlobal);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, g);
  // Remember the real globals, then make the proxy the thread's global table.
  lua_pushlightuserdata(L, &kRealGlobalsKey);
  lua_pushvalue(L, g);
  lua_rawset(L, LUA_REGISTRYINDEX);
  PushProxy(L, g);
  lua_pushvalue(L, -1);
  lua_setfield(L, g, "_G");
  lua_replace(L, LUA_GLOBALSINDEX);
  lua_settop(L, 0);
  return L;
}

}  // namespace redistp
