// Error texts of SCRIPT DEBUG and the Lua debugger (scripting/lua_debugger.h), byte-identical to
// Redis 7.0's. A header of their own, included only where the debugger is, so adding one does not
// rebuild every file that includes protocol/errors.h.
#pragma once

#include <string_view>

namespace redistp::err {

inline constexpr std::string_view kScriptDebugUsage = "ERR Use SCRIPT DEBUG YES/SYNC/NO";
// Asked with replies still pending for the connection (a pipeline, or inside EXEC): the
// session's log would interleave with them.
inline constexpr std::string_view kScriptDebugPipeline =
    "ERR SCRIPT DEBUG must be called outside a pipeline";
// A debugging session shows the script's source, which EVALSHA does not send.
inline constexpr std::string_view kScriptDebugEvalSha =
    "ERR Please use EVAL instead of EVALSHA for debugging";
inline constexpr std::string_view kScriptDebugForkFailed =
    "ERR Fork() failed: can't run EVAL in debugging mode: ";
// Raised in the debugged script (its trace names the line it stopped at).
inline constexpr std::string_view kScriptDebugAborted = "ERR script aborted for user request";
inline constexpr std::string_view kScriptDebugProtocol = "ERR protocol error";
// redis-tp's own: a forked session's child hands out fencing tokens only below the reservation
// mark the parent already made durable (the child never writes the reservation file).
inline constexpr std::string_view kScriptDebugNoFence =
    "ERR a forked debugging session cannot reserve fencing tokens";

}  // namespace redistp::err
