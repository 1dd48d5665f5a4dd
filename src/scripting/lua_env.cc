// The scripts' Lua environment (model in lua_env.h).
#include "scripting/lua_env.h"

#include <malloc.h>
#include <pthread.h>

#include <climits>
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
char kReadonlyMapKey;  // proxy -> the table it stands for
char kProxyOfKey;      // table -> its proxy
char kRandStateKey;
char kErrorHandlerKey;
char kTrampolineKey;

// What RunProtected runs.
struct ProtectedTask {
  int (*fn)(lua_State*, void*);
  void* ud;
};

// The C function behind RunProtected: its last argument is the task.
int Trampoline(lua_State* L) {
  auto* task = static_cast<ProtectedTask*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return task->fn(L, task->ud);
}

constexpr const char* kReadonlyError = "Attempt to modify a readonly table";

ScriptEngine* EngineOf(lua_State* L) {
  return static_cast<ScriptEngine*>(lua_touserdata(L, lua_upvalueindex(1)));
}

// ---- read-only proxies ----------------------------------------------------------------------

// Pushes the table of the proxy map `key` (proxy -> table, or table -> proxy).
void PushProxyMap(lua_State* L, char* key) {
  lua_pushlightuserdata(L, key);
  lua_rawget(L, LUA_REGISTRYINDEX);
}

// Looks the value at `idx` up in the map `key`: pushes what it maps to, or nil. Raw reads only,
// no allocation: it cannot raise.
void LookUpProxyMap(lua_State* L, int idx, char* key) {
  if (idx < 0) idx = lua_gettop(L) + idx + 1;
  PushProxyMap(L, key);
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  lua_remove(L, -2);
}

bool IsProxy(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE) return false;
  LookUpProxyMap(L, idx, &kReadonlyMapKey);
  const bool found = !lua_isnil(L, -1);
  lua_pop(L, 1);
  return found;
}

// If the table at `idx` is a real table that has a read-only proxy, replaces it with the proxy.
void ProxyInsteadOfTable(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE) return;
  if (idx < 0) idx = lua_gettop(L) + idx + 1;
  LookUpProxyMap(L, idx, &kProxyOfKey);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  lua_replace(L, idx);
}

// Raises {err = "ERR <msg>"}: Redis's helpers fail with an error table, so the script's error
// carries no "user_script:N:" position (Lua's own library errors do).
int RaiseError(lua_State* L, const char* msg) {
  PushErrorTable(L, msg, std::strlen(msg));
  return lua_error(L);
}

// The refusal of a raw write to a read-only table. Redis's check sits in the C API its library
// functions call, so the error carries no position.
int RefuseWrite(lua_State* L) {
  lua_pushstring(L, kReadonlyError);
  return lua_error(L);
}

// The wrappers below replace library functions that read or write a table raw. Each is a closure
// with two upvalues: the original's own first upvalue (pairs and ipairs keep their iterator
// there; nil for the others) and a userdata holding the original lua_CFunction. The original is
// called directly, in the wrapper's own frame: its argument errors then name the function as the
// script called it ("bad argument #1 to 'insert'") and carry the script's position, exactly as
// Lua's unwrapped functions do in Redis.
lua_CFunction OriginalOf(lua_State* L) {
  lua_CFunction f = nullptr;
  std::memcpy(&f, lua_touserdata(L, lua_upvalueindex(2)), sizeof(f));
  return f;
}

// Functions that read a table raw (rawget, next, pairs, ipairs, unpack, table.concat/getn/maxn/
// foreach/foreachi): a proxy stands for its table.
int ReadThrough(lua_State* L) {
  UnwrapProxy(L, 1);
  return OriginalOf(L)(L);
}

// getmetatable: as above, and a metatable that has a read-only proxy (the globals' own, whose
// __index raises for missing names) is answered as that proxy, so it cannot be changed.
int GetMetatableThrough(lua_State* L) {
  UnwrapProxy(L, 1);
  const int n = OriginalOf(L)(L);
  if (n == 1) ProxyInsteadOfTable(L, -1);
  return n;
}

// rawset: the original's argument checks, then a proxy refuses.
int RawSetChecked(lua_State* L) {
  if (IsProxy(L, 1)) {
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    return RefuseWrite(L);
  }
  return OriginalOf(L)(L);
}

// setmetatable: the original's argument checks, then a proxy refuses.
int SetMetatableChecked(lua_State* L) {
  if (IsProxy(L, 1)) {
    const int t = lua_type(L, 2);
    luaL_argcheck(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table expected");
    return RefuseWrite(L);
  }
  return OriginalOf(L)(L);
}

// table.insert: with 2 or 3 arguments (after the position check) the original always writes, so
// a proxy refuses there; other counts get the original's own error. (table.remove, sort and setn
// are not wrapped: on a proxy, whose length is 0 like its table's, they never write.)
//
// And a far position. Lua 5.1's insert moves t[i-1] to t[i] for every i from #t + 1 down to
// pos + 1, one step at a time in C, where no hook can stop it: `table.insert(t, -2^31, v)` took
// the server (Redis 7.0 as well) for minutes, with no SCRIPT KILL possible. A shift longer than
// kLongShift is done here instead, with the same result: every integer key k in [pos, #t] with a
// value moves to k + 1 (a key in [pos + 1, #t + 1] with no value at k - 1 is left without one),
// then t[pos] = v, in time proportional to the table's size. The position is read as the
// original reads it (luaL_checkint: the number's integer part, cut to a C int).
constexpr int64_t kLongShift = int64_t{1} << 20;

void ShiftUp(lua_State* L, int64_t pos, int64_t end) {
  // The keys in [pos, end - 1] that have values, and their values (a new table: the original's
  // keys cannot be changed while next() walks them).
  lua_newtable(L);
  const int moved = lua_gettop(L);
  int count = 0;
  lua_pushnil(L);
  while (lua_next(L, 1) != 0) {
    if (lua_type(L, -2) == LUA_TNUMBER) {
      const lua_Number k = lua_tonumber(L, -2);
      if (k >= static_cast<lua_Number>(pos) && k < static_cast<lua_Number>(end) &&
          k == std::floor(k)) {
        lua_pushvalue(L, -2);
        lua_rawseti(L, moved, ++count);  // moved[2n-1] = key, moved[2n] = value
        lua_rawseti(L, moved, ++count);
        continue;  // the value was popped by the second rawseti; the key stays for next()
      }
    }
    lua_pop(L, 1);
  }
  // Every old key of the range goes, then each value lands one place up.
  for (int i = 1; i <= count; i += 2) {
    lua_rawgeti(L, moved, i);  // the key
    lua_pushnil(L);
    lua_rawset(L, 1);
  }
  for (int i = 1; i <= count; i += 2) {
    lua_rawgeti(L, moved, i);
    lua_pushnumber(L, lua_tonumber(L, -1) + 1);  // key + 1
    lua_remove(L, -2);
    lua_rawgeti(L, moved, i + 1);  // its value
    lua_rawset(L, 1);
  }
  lua_pop(L, 1);
}

int InsertChecked(lua_State* L) {
  const int argc = lua_gettop(L);
  if (IsProxy(L, 1)) {
    if (argc == 3) (void)luaL_checkinteger(L, 2);
    if (argc == 2 || argc == 3) return RefuseWrite(L);
  }
  if (argc == 3 && lua_type(L, 1) == LUA_TTABLE && lua_isnumber(L, 2)) {
    const int64_t pos = static_cast<int>(luaL_checkinteger(L, 2));
    const int64_t end = static_cast<int64_t>(lua_objlen(L, 1)) + 1;
    if (end - pos > kLongShift) {
      ShiftUp(L, pos, end);
      lua_pushvalue(L, 3);
      lua_rawseti(L, 1, static_cast<int>(pos));
      return 0;
    }
  }
  return OriginalOf(L)(L);
}

// bit.tohex: a negative digit count asks for upper case, and LuaBitOp negates it. The negation
// of -2^31 overflows, and the library then wrote that count's bytes from its 8-byte stack buffer:
// one line, `return bit.tohex(1, -2^31)` (or 2^31, which converts to the same 32 bits), killed
// the server. Redis's copy of the library reads that count as -(2^31 - 1), which is 8 upper-case
// digits; so does this wrapper, before the original runs. The count is converted to 32 bits the
// way LuaBitOp converts every argument: the number plus 2^52 + 2^51, its low 32 bits.
int TohexChecked(lua_State* L) {
  if (lua_isnumber(L, 2)) {
    const double biased = lua_tonumber(L, 2) + 6755399441055744.0;
    uint64_t bits = 0;
    std::memcpy(&bits, &biased, sizeof(bits));
    if (static_cast<uint32_t>(bits) == 0x80000000u) {
      lua_pushnumber(L, -2147483647.0);
      lua_replace(L, 2);
    }
  }
  return OriginalOf(L)(L);
}

// unpack: Lua 5.1 refuses a range of 2^31 values or more by testing whether its int count
// overflowed, a test Debian's optimized build of the library does not keep (signed overflow is
// undefined): `unpack({}, -2^31)` then pushed 2^31 values onto the stack and killed the server.
// The range is measured here in 64 bits first, with the original's argument checks and message.
int UnpackChecked(lua_State* L) {
  UnwrapProxy(L, 1);
  luaL_checktype(L, 1, LUA_TTABLE);
  const int64_t first = luaL_optint(L, 2, 1);
  const int64_t last = lua_isnoneornil(L, 3) ? luaL_getn(L, 1) : luaL_checkint(L, 3);
  if (first <= last && last - first >= INT32_MAX) {
    return luaL_error(L, "too many results to unpack");
  }
  return OriginalOf(L)(L);
}

// Lua 5.1's pattern matcher recurses in C once per quantifier (?, *, -) and capture, with no
// limit of its own (Lua 5.2 added one): `string.find(s, string.rep('a?', 300000))` overflowed
// the C stack and killed the server (Redis 7.0 as well). Before the original runs, the pattern's
// count of those characters (an upper bound of the recursion's depth) times a frame's size must
// fit in the stack left on this thread, with room to spare; otherwise the call raises "pattern
// too complex", Lua 5.2's words. A frame measures about 80 bytes on x86-64 (Debian's liblua5.1);
// 256 leaves room for other builds. Nothing else runs while the matcher recurses (it calls no Lua
// code), so the check at entry holds for the whole match.
constexpr size_t kMatchFrameBytes = 256;
constexpr size_t kStackReserve = size_t{1} << 20;

// Bytes of C stack left below the caller on this thread (SIZE_MAX if the thread's stack cannot
// be read: no limit is applied then).
size_t StackLeft() {
  thread_local const uintptr_t low = [] {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return uintptr_t{0};
    void* addr = nullptr;
    size_t size = 0;
    const int rc = pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    return rc == 0 ? reinterpret_cast<uintptr_t>(addr) : uintptr_t{0};
  }();
  if (low == 0) return SIZE_MAX;
  const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  return here > low ? here - low : 0;
}

// Raises unless the pattern at `idx` can recurse as deep as it may with `reserve` bytes to spare.
// A pattern that is not a string is left to the original's argument check.
void CheckPatternDepth(lua_State* L, int idx, size_t reserve) {
  if (lua_type(L, idx) != LUA_TSTRING && lua_type(L, idx) != LUA_TNUMBER) return;
  size_t len = 0;
  const char* p = lua_tolstring(L, idx, &len);
  size_t depth = 0;
  for (size_t i = 0; i < len; ++i) {
    const char c = p[i];
    depth += (c == '?' || c == '*' || c == '-' || c == '(' || c == ')') ? 1 : 0;
  }
  if (depth == 0) return;
  const size_t left = StackLeft();
  if (left < reserve || (left - reserve) / kMatchFrameBytes < depth) {
    luaL_error(L, "pattern too complex");
  }
}

// string.match, string.gsub: checked on entry.
int MatchChecked(lua_State* L) {
  CheckPatternDepth(L, 2, kStackReserve);
  return OriginalOf(L)(L);
}

// string.find: the same, but a plain search (a true fourth argument) does not match patterns.
int FindChecked(lua_State* L) {
  if (!lua_toboolean(L, 4)) CheckPatternDepth(L, 2, kStackReserve);
  return OriginalOf(L)(L);
}

// string.gmatch: its iterator matches later, possibly from deeper in the stack, so it is checked
// on creation with room for the deepest nesting of calls Lua allows between the two (200 levels).
int GmatchChecked(lua_State* L) {
  CheckPatternDepth(L, 2, 3 * kStackReserve);
  return OriginalOf(L)(L);
}

// Replaces table[name] (table at `idx`) by `wrapper` around the original C function.
void Wrap(lua_State* L, int idx, const char* name, lua_CFunction wrapper) {
  if (idx < 0) idx = lua_gettop(L) + idx + 1;
  lua_getfield(L, idx, name);
  lua_CFunction original = lua_tocfunction(L, -1);
  if (original == nullptr) {
    lua_pop(L, 1);
    return;
  }
  if (lua_getupvalue(L, -1, 1) == nullptr) lua_pushnil(L);
  lua_remove(L, -2);
  void* box = lua_newuserdata(L, sizeof(original));
  std::memcpy(box, &original, sizeof(original));
  lua_pushcclosure(L, wrapper, 2);
  lua_setfield(L, idx, name);
}

// Pushes a read-only proxy of the table at `idx` and records it in both proxy maps.
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
  const int proxy = lua_gettop(L);
  PushProxyMap(L, &kReadonlyMapKey);
  lua_pushvalue(L, proxy);
  lua_pushvalue(L, idx);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  PushProxyMap(L, &kProxyOfKey);
  lua_pushvalue(L, idx);
  lua_pushvalue(L, proxy);
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
      // u - l + 1 in 32 bits, wrapping as Redis's int arithmetic does on x86-64 (math.random(
      // -2^31, 2^31 - 1)), without the signed overflow: found by tests/fuzz/lua_fuzz.cc (UBSan).
      const auto span =
          static_cast<int32_t>(static_cast<uint32_t>(u) - static_cast<uint32_t>(l) + 1u);
      lua_pushnumber(L, std::floor(r * span) + l);
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
  if (argc == 0) {
    // Redis's pcall calls its own placeholder then: false and this message, not an error.
    lua_pushboolean(L, 0);
    lua_pushstring(L, "attempt to call a boolean value");
    return 2;
  }
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

// The handler is Lua code, as Redis's is, because where it stands shows in errors: an error raised
// while it runs (an error table whose __newindex raises, a read-only table given to error()) is
// reported at its line, "err_handler_def:10: Attempt to modify a readonly table ... on
// @err_handler_def:10.", and then handled by the handler again. So the chunk is named as
// Redis's, the two field stores are on its lines 10 and 11, and it reads the frame that raised
// at the same depths (level 2, or 3 when level 2 is a C function). It gets debug.getinfo, type
// and tostring as upvalues, so it needs no global. A non-table error becomes
// {err = "ERR " .. tostring(e)}.
constexpr char kErrorHandlerCode[] =
    "local frame_info, type_of, to_text = ...\n"    // 1
    "local function handle(e)\n"                    // 2
    "  local where = frame_info(2, 'nSl')\n"        // 3
    "  if where and where.what == 'C' then\n"       // 4
    "    where = frame_info(3, 'nSl')\n"            // 5
    "  end\n"                                       // 6
    "  if type_of(e) ~= 'table' then\n"             // 7
    "    e = {err = 'ERR ' .. to_text(e)}\n"        // 8
    "  end\n"                                       // 9
    "  if where then e['source'] = where.source\n"  // 10
    "    e['line'] = where.currentline end\n"       // 11
    "  return e\n"                                  // 12
    "end\n"                                         // 13
    "return handle\n";                              // 14

// Builds the handler (the debug library is opened for its getinfo, then dropped: scripts do not
// see it) and keeps it in the registry. Runs on the fresh state, before the sandbox.
void CreateErrorHandler(lua_State* L) {
  lua_pushcfunction(L, luaopen_debug);
  lua_pushstring(L, LUA_DBLIBNAME);
  lua_call(L, 1, 0);
  luaL_loadbuffer(L, kErrorHandlerCode, sizeof(kErrorHandlerCode) - 1, "@err_handler_def");
  lua_getglobal(L, LUA_DBLIBNAME);
  lua_getfield(L, -1, "getinfo");
  lua_remove(L, -2);
  lua_getglobal(L, "type");
  lua_getglobal(L, "tostring");
  lua_call(L, 3, 1);
  lua_pushlightuserdata(L, &kErrorHandlerKey);
  lua_insert(L, -2);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_pushnil(L);
  lua_setglobal(L, LUA_DBLIBNAME);
}

// ---- the redis table ---------------------------------------------------------------------------

// The int Redis's `(int)lua_tonumber(...)` gives on x86-64: truncation toward zero, and INT_MIN
// (the conversion's "indefinite" value) for NaN and for what does not fit, where the C cast
// itself would be undefined (redis.setresp(1/0), found by tests/fuzz/lua_fuzz.cc).
int NumberToIntAsC(double d) {
  if (std::isnan(d) || d >= 2147483648.0 || d <= -2147483649.0) return INT32_MIN;
  return static_cast<int>(d);
}

int RedisCall(lua_State* L) { return EngineOf(L)->CallFromLua(L, true); }
int RedisPCall(lua_State* L) { return EngineOf(L)->CallFromLua(L, false); }

int RedisSha1Hex(lua_State* L) {
  if (lua_gettop(L) != 1) return RaiseError(L, "wrong number of arguments");
  size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  char hex[40];
  {
    // No C++ string may live across the push (lack of memory raises there).
    std::string h = Sha1Hex(s != nullptr ? std::string_view(s, len) : std::string_view());
    std::memcpy(hex, h.data(), sizeof(hex));
  }
  lua_pushlstring(L, hex, sizeof(hex));
  return 1;
}

int RedisErrorReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    PushCodedErrorTable(L, "ERR", "wrong number or type of arguments");
    return 1;
  }
  size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  // "-CODE text" or "CODE text" alike: a leading dash is optional here.
  if (len > 0 && s[0] == '-') {
    PushErrorTable(L, s, len);
  } else {
    PushCodedErrorTable(L, std::string_view(s, len));
  }
  return 1;
}

int RedisStatusReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    PushCodedErrorTable(L, "ERR", "wrong number or type of arguments");
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
  int level = NumberToIntAsC(lua_tonumber(L, 1));
  if (level < 0 || level > 3) return RaiseError(L, "Invalid debug level.");
  // The line is built by Lua (converting a number argument allocates, which may raise: no C++
  // string may be alive then).
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 2; i <= argc; ++i) {
    if (i > 2) luaL_addchar(&b, ' ');
    size_t len = 0;
    const char* s = lua_tolstring(L, i, &len);
    if (s != nullptr) luaL_addlstring(&b, s, len);
  }
  luaL_pushresult(&b);
  EngineOf(L)->server().log().Log(static_cast<LogLevel>(level), "%s", lua_tostring(L, -1));
  return 0;
}

int RedisSetResp(lua_State* L) {
  if (lua_gettop(L) != 1) return RaiseError(L, "redis.setresp() requires one argument.");
  int resp = NumberToIntAsC(lua_tonumber(L, 1));
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
  int flags = NumberToIntAsC(lua_tonumber(L, 1));
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

// The debugger's entry points (scripting/lua_debugger.h): no effect outside a debugging session.
int RedisDebug(lua_State* L) { return EngineOf(L)->debugger().LuaDebug(L); }
int RedisBreakpoint(lua_State* L) { return EngineOf(L)->debugger().LuaBreakpoint(L); }

int RedisAclCheckCmd(lua_State* L) { return EngineOf(L)->AclCheckFromLua(L); }

void SetFunction(lua_State* L, const char* name, lua_CFunction f, ScriptEngine* engine) {
  lua_pushlightuserdata(L, engine);
  lua_pushcclosure(L, f, 1);
  lua_setfield(L, -2, name);
}

void SetNumber(lua_State* L, const char* name, lua_Number v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, name);
}

// The fields go in in Redis's order: a Lua table's iteration order depends on it, and
// `return {map = redis}` shows that order. The debugger's and pre-7.0 replication's entry points
// are EVAL's only.
void PushRedisTable(lua_State* L, ScriptEngine* engine, LuaStateKind kind) {
  lua_newtable(L);
  SetFunction(L, "call", RedisCall, engine);
  SetFunction(L, "pcall", RedisPCall, engine);
  SetFunction(L, "log", RedisLog, engine);
  SetNumber(L, "LOG_DEBUG", 0);
  SetNumber(L, "LOG_VERBOSE", 1);
  SetNumber(L, "LOG_NOTICE", 2);
  SetNumber(L, "LOG_WARNING", 3);
  SetNumber(L, "REDIS_VERSION_NUM", kRedisVersionNum);
  lua_pushstring(L, kRedisVersion);
  lua_setfield(L, -2, "REDIS_VERSION");
  SetFunction(L, "setresp", RedisSetResp, engine);
  SetFunction(L, "sha1hex", RedisSha1Hex, engine);
  SetFunction(L, "error_reply", RedisErrorReply, engine);
  SetFunction(L, "status_reply", RedisStatusReply, engine);
  SetFunction(L, "set_repl", RedisSetRepl, engine);
  SetNumber(L, "REPL_NONE", kReplNone);
  SetNumber(L, "REPL_AOF", kReplAof);
  SetNumber(L, "REPL_SLAVE", kReplReplica);
  SetNumber(L, "REPL_REPLICA", kReplReplica);
  SetNumber(L, "REPL_ALL", kReplAll);
  SetFunction(L, "acl_check_cmd", RedisAclCheckCmd, engine);
  if (kind == LuaStateKind::kEval) {
    SetFunction(L, "breakpoint", RedisBreakpoint, engine);
    SetFunction(L, "debug", RedisDebug, engine);
    SetFunction(L, "replicate_commands", RedisReplicateCommands, engine);
  }
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

int RunProtected(lua_State* L, int nargs, int nresults, int (*fn)(lua_State*, void*), void* ud) {
  ProtectedTask task{fn, ud};
  lua_pushlightuserdata(L, &kTrampolineKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_insert(L, -(nargs + 1));
  lua_pushlightuserdata(L, &task);
  return lua_pcall(L, nargs + 1, nresults, 0);
}

void InstallRunProtected(lua_State* L) {
  lua_pushlightuserdata(L, &kTrampolineKey);
  lua_pushcfunction(L, Trampoline);
  lua_rawset(L, LUA_REGISTRYINDEX);
}

namespace {

struct CollectTask {
  int what;
  int data;
};

int CollectTask_(lua_State* L, void* ud) {
  auto* task = static_cast<CollectTask*>(ud);
  lua_gc(L, task->what, task->data);
  return 0;
}

int RefTask(lua_State* L, void* ud) {
  *static_cast<int*>(ud) = luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

int UnrefTask(lua_State* L, void* ud) {
  luaL_unref(L, LUA_REGISTRYINDEX, *static_cast<int*>(ud));
  return 0;
}

}  // namespace

int RefProtected(lua_State* L) {
  int ref = LUA_NOREF;
  if (RunProtected(L, 1, 0, RefTask, &ref) != 0) {
    lua_pop(L, 1);
    return LUA_NOREF;
  }
  return ref;
}

void UnrefProtected(lua_State* L, int ref) {
  if (RunProtected(L, 0, 0, UnrefTask, &ref) != 0) lua_pop(L, 1);
}

bool CollectProtected(lua_State* L, int what, int data) {
  CollectTask task{what, data};
  if (RunProtected(L, 0, 0, CollectTask_, &task) == 0) return true;
  lua_pop(L, 1);
  return false;
}

void PushErrorHandler(lua_State* L) {
  lua_pushlightuserdata(L, &kErrorHandlerKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
}

bool UnwrapProxy(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE) return false;
  if (idx < 0) idx = lua_gettop(L) + idx + 1;
  LookUpProxyMap(L, idx, &kReadonlyMapKey);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return false;
  }
  lua_replace(L, idx);
  return true;
}

void PushErrorTable(lua_State* L, const char* msg, size_t len) {
  std::string_view m(msg, len);
  if (!m.empty() && m[0] == '-') {
    m.remove_prefix(1);
    if (m.find(' ') == std::string_view::npos) {
      PushCodedErrorTable(L, "ERR", m);
      return;
    }
    PushCodedErrorTable(L, m);
    return;
  }
  PushCodedErrorTable(L, "ERR", m);
}

void PushCodedErrorTable(lua_State* L, std::string_view code_and_text) {
  const size_t sp = code_and_text.find(' ');
  if (sp == std::string_view::npos) {
    PushCodedErrorTable(L, "ERR", code_and_text);
  } else {
    PushCodedErrorTable(L, code_and_text.substr(0, sp), code_and_text.substr(sp + 1));
  }
}

void PushCodedErrorTable(lua_State* L, std::string_view code, std::string_view text) {
  while (!text.empty() && (text.back() == '\r' || text.back() == '\n')) text.remove_suffix(1);
  while (!text.empty() && (text.front() == '\r' || text.front() == '\n')) text.remove_prefix(1);
  // Lua builds the text (no C++ string): lack of memory may raise here.
  lua_createtable(L, 0, 1);
  lua_pushlstring(L, code.data(), code.size());
  lua_pushlstring(L, " ", 1);
  lua_pushlstring(L, text.data(), text.size());
  lua_concat(L, 3);
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
  InstallRunProtected(L);
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
  lua_getglobal(L, "bit");
  Wrap(L, -1, "tohex", TohexChecked);
  lua_pop(L, 1);
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

  PushRedisTable(L, engine, kind);
  lua_setglobal(L, "redis");
  CreateErrorHandler(L);
  PushErrorHandler(L);
  lua_setglobal(L, "__redis__err__handler");

  // The read-only machinery: the proxy maps, the wrappers, then a proxy for every library table,
  // the string metatable and the globals themselves.
  for (char* key : {&kReadonlyMapKey, &kProxyOfKey}) {
    lua_pushlightuserdata(L, key);
    lua_newtable(L);
    lua_rawset(L, LUA_REGISTRYINDEX);
  }
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  const int g = lua_gettop(L);
  for (const char* f : {"rawget", "next", "pairs", "ipairs"}) Wrap(L, g, f, ReadThrough);
  Wrap(L, g, "unpack", UnpackChecked);
  Wrap(L, g, "getmetatable", GetMetatableThrough);
  Wrap(L, g, "rawset", RawSetChecked);
  Wrap(L, g, "setmetatable", SetMetatableChecked);
  lua_getfield(L, g, LUA_TABLIBNAME);
  for (const char* f : {"concat", "getn", "maxn", "foreach", "foreachi"}) {
    Wrap(L, -1, f, ReadThrough);
  }
  Wrap(L, -1, "insert", InsertChecked);
  lua_pop(L, 1);
  lua_getfield(L, g, LUA_STRLIBNAME);
  Wrap(L, -1, "find", FindChecked);
  Wrap(L, -1, "match", MatchChecked);
  Wrap(L, -1, "gsub", MatchChecked);
  Wrap(L, -1, "gmatch", GmatchChecked);
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
  // The string metatable: getmetatable("") answers a proxy of it (the wrapper maps it), and its
  // __index is the string table scripts see (the proxy), so getmetatable('').__index == string.
  lua_pushstring(L, "");
  if (lua_getmetatable(L, -1) != 0) {
    lua_getfield(L, g, LUA_STRLIBNAME);
    lua_setfield(L, -2, "__index");
    PushProxy(L, -1);
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  // Missing globals raise. The globals' own metatable is reached only as a read-only proxy
  // (getmetatable(_G) answers it), as Redis's is read-only.
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, LuaMissingGlobal);
  lua_setfield(L, -2, "__index");
  PushProxy(L, -1);
  lua_pop(L, 1);
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
