// The Lua environment scripts run in: Redis 7.0's, built on Debian's Lua 5.1.
//
// Libraries: base (without print, dofile, loadfile, getfenv, setfenv, newproxy), table, string,
// math (random and randomseed replaced by Redis's deterministic rand48 generator, which starts
// from the standard default state and is never reseeded by the server), coroutine, cjson
// (Debian's lua-cjson), bit (Debian's lua-bitop), struct and cmsgpack (ours), and `redis`.
//
// Read-only globals. Redis 7.0 patches its Lua to mark tables read-only; Debian's Lua has no
// such patch, so the same rules are built from proxies: the thread's global table is replaced by
// an empty proxy whose reads fall through to the real globals (a missing name raises "Script
// attempted to access nonexistent global variable") and whose writes raise "Attempt to modify a
// readonly table"; every library table (and the string metatable) is reached through such a
// proxy too. The functions that bypass metamethods (rawset, rawget, next, pairs, ipairs,
// setmetatable, and table.insert/remove/sort/setn/concat/getn/maxn/foreach/foreachi, unpack) are
// wrapped so a proxy behaves as its table for reading and refuses writes, as a read-only table
// does in Redis. C code sets KEYS and ARGV on the real global table.
//
// The error handler (the global __redis__err__handler, also used by the engine) turns any error
// into a table {err = ..., source = ..., line = ...} naming where it was raised: a string error
// becomes "ERR <message>".
#pragma once

#include <cstddef>

struct lua_State;

namespace redistp {

class ScriptEngine;

enum class LuaStateKind { kEval, kFunctions };

// Creates the state with the libraries, the `redis` table bound to `engine`, and the sandbox.
lua_State* NewScriptLuaState(ScriptEngine* engine, LuaStateKind kind);

// Pushes the real global table (not the read-only proxy scripts see).
void PushRealGlobals(lua_State* L);

// The proxy layout, for the functions engine (which gives a library's load code globals of its
// own): pushes the table the proxy at `proxy_index` reads through (nil if none) ...
void PushProxiedTable(lua_State* L, int proxy_index);
// ... and points the thread's global proxy at the table registered as `fallback_ref`.
void SetGlobalsFallback(lua_State* L, int fallback_ref);
// __newindex of read-only tables and __index of missing globals (Redis's error texts).
int LuaReadonlyNewIndex(lua_State* L);
int LuaMissingGlobal(lua_State* L);

// Pushes the error handler (a C function).
void PushErrorHandler(lua_State* L);

// Pushes an error table {err = <code and message>} the way redis.error_reply builds it:
// "-CODE msg" -> "CODE msg", "-msg" without a space -> "ERR msg", "msg" -> "ERR msg"; CR/LF at
// either end trimmed.
void PushErrorTable(lua_State* L, const char* msg, size_t len);

}  // namespace redistp
