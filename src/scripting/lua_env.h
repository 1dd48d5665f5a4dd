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
// readonly table"; every library table, the string metatable and the globals' own metatable are
// reached through such a proxy too. The functions that bypass metamethods are wrapped so a proxy
// behaves as its table for reading (rawget, next, pairs, ipairs, unpack, getmetatable,
// table.concat/getn/maxn/foreach/foreachi) and refuses writes after the original's argument
// checks (rawset, setmetatable, table.insert), as a read-only table does in Redis; table.remove,
// sort and setn never write to a table of length 0, which every proxy is. A wrapper calls the
// original C function in its own frame, so errors name the function and the script's line as
// Lua's own functions do. C code sets KEYS and ARGV on the real global table. Reply conversion
// reads a proxy as its table (UnwrapProxy).
//
// The error handler (the global __redis__err__handler of EVAL's state, kept in the registry for
// both states) is Lua code named "@err_handler_def" laid out line for line as Redis's, since
// errors raised inside it name its lines: it turns any error into a table {err = ..., source =
// ..., line = ...} naming where it was raised; a non-table error becomes "ERR <tostring(e)>".
#pragma once

#include <cstddef>
#include <string_view>

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

// Pushes the error handler.
void PushErrorHandler(lua_State* L);

// If the value at `idx` is a read-only proxy, replaces it with the table it stands for and
// returns true. Raw reads only: it cannot raise.
bool UnwrapProxy(lua_State* L, int idx);

// Runs fn(L, ud) as a protected call, in a Lua frame of its own whose stack holds the `nargs`
// values taken from the top of L's stack; fn returns how many results it leaves (adjusted to
// `nresults`, as lua_pcall does). Returns 0, or lua_pcall's error code with the error value
// pushed. Needs two free stack slots and allocates nothing before the call is protected (the C
// function behind it was made with the state), so it is safe from C++ code outside any Lua call.
// fn's frames may be longjmp'd over: no C++ object with a destructor may live in them across a
// Lua call that can raise.
int RunProtected(lua_State* L, int nargs, int nresults, int (*fn)(lua_State*, void*), void* ud);
// Makes the C function RunProtected calls through, once per state, before any library that
// uses RunProtected runs (NewScriptLuaState does it; so must a bare state of a unit test).
void InstallRunProtected(lua_State* L);

// A garbage-collection call (lua_gc with `what` and `data`) in a protected call: a collection
// may allocate (shrinking the string table) and so raise when memory is short. Returns false
// if it raised.
bool CollectProtected(lua_State* L, int what, int data);

// luaL_ref / luaL_unref on the registry in a protected call (both may grow the registry, so
// raise when memory is short). RefProtected pops the value and returns its reference, or
// LUA_NOREF if it raised (the value is popped either way).
int RefProtected(lua_State* L);
void UnrefProtected(lua_State* L, int ref);

// Pushes an error table {err = <code and message>} the way redis.error_reply builds it:
// "-CODE msg" -> "CODE msg", "-msg" without a space -> "ERR msg", "msg" -> "ERR msg"; CR/LF at
// either end trimmed.
void PushErrorTable(lua_State* L, const char* msg, size_t len);
// The same from "CODE text" (no dash; without a space the code is ERR) or from its two parts.
// None of the three keeps a C++ object alive while Lua allocates.
void PushCodedErrorTable(lua_State* L, std::string_view code_and_text);
void PushCodedErrorTable(lua_State* L, std::string_view code, std::string_view text);

}  // namespace redistp
