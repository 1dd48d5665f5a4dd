// Conversion between RESP replies and Lua values, both ways, as Redis 7.0 defines it for
// scripts.
//
// Command reply -> Lua (what redis.call returns). The command ran on the script's own client,
// whose protocol is the one the script chose with redis.setresp (2 by default), so the reply
// arrives as RESP bytes and is read back here:
//   integer -> number; bulk string -> string; null bulk / null array (RESP2) -> false;
//   array -> table (1..n); status -> {ok = text}; error -> {err = text};
//   RESP3 only: null -> nil; boolean -> true/false; double -> {double = number};
//   big number -> {big_number = digits}; map -> {map = {k = v}}; set -> {set = {member = true}};
//   verbatim string -> {verbatim_string = {format = "txt", string = text}}.
//
// Lua -> reply (what the script returns, written for the calling client in its protocol):
//   string -> bulk; number -> integer (truncated toward zero; NaN and values out of range
//   become the smallest integer, as the x86 conversion Redis relies on gives); nil -> null;
//   true -> 1 and false -> null while the script speaks RESP2, booleans under RESP3;
//   a table with a string `err` -> error reply, else with a string `ok` -> status reply,
//   else with a number `double`, a string `big_number`, a table `map`, `set` or
//   `verbatim_string` -> that RESP3 type (degraded by the reply builder for RESP2 callers),
//   else an array of t[1], t[2] ... up to the first nil. Other Lua types -> null.
//   Errors and statuses have CR and LF replaced by spaces.
#pragma once

#include <cstddef>
#include <string_view>

struct lua_State;

namespace redistp {

class ReplyBuilder;

// The field an error table carries when the error was already counted in the error statistics
// (a command's error seen by redis.call/pcall); Redis 7.0 uses the same name.
inline constexpr const char* kIgnoreStatsField = "ignore_error_stats_update";

// Pushes the Lua value of the one complete reply at the start of `resp` and returns the number
// of bytes it took. The bytes were produced by our ReplyBuilder, so they are well formed.
size_t PushReplyAsLua(lua_State* L, std::string_view resp);

// Writes the Lua value at stack index `idx` as a reply. `script_resp` is the protocol the
// script chose (redis.setresp): it decides how booleans are sent.
void WriteLuaAsReply(lua_State* L, int idx, ReplyBuilder& out, int script_resp);

// Converts a Lua number to the integer Redis sends for it (truncation toward zero; NaN and
// out-of-range values give INT64_MIN, Redis's observable result).
long long LuaNumberToInteger(double d);

}  // namespace redistp
