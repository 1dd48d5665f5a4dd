// Error texts of scripting: EVAL and SCRIPT, the Lua environment and redis.call, busy scripts
// and SCRIPT KILL / FUNCTION KILL, FUNCTION and FCALL. One of the headers errors.h gathers;
// every text byte-identical to Redis 7.0's (without '-' and CRLF), but for the few a script
// error Redis cannot report, which say so.
#pragma once

#include <string>
#include <string_view>

#include "protocol/errors_common.h"
#include "protocol/errors_server.h"

namespace redistp::err {

// ---- scripting: EVAL, SCRIPT, the Lua environment ----
inline constexpr std::string_view kNoScript = "NOSCRIPT No matching script. Please use EVAL.";
inline constexpr std::string_view kScriptNegativeKeys = "ERR Number of keys can't be negative";
inline constexpr std::string_view kScriptTooManyKeys =
    "ERR Number of keys can't be greater than number of args";
inline constexpr std::string_view kInvalidShebang = "ERR Invalid script shebang";
inline std::string UnexpectedShebangEngine(std::string_view engine) {
  return "ERR Unexpected engine in script shebang: " + std::string(engine);
}
inline std::string UnknownShebangOption(std::string_view option) {
  return "ERR Unknown lua shebang option: " + std::string(option);
}
inline std::string UnexpectedShebangFlag(std::string_view flag) {
  return "ERR Unexpected flag in script shebang: " + std::string(flag);
}
// "ERR Error compiling script (new function): user_script:1: <Lua's message>"
inline std::string ScriptCompileError(std::string_view lua_message) {
  return "ERR Error compiling script (new function): " + std::string(lua_message);
}
inline constexpr std::string_view kScriptWriteFlagRo =
    "ERR Can not execute a script with write flag using *_ro command.";
inline constexpr std::string_view kScriptOomFlag =
    "OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'";
// A script's error that Redis 7.0 cannot report (it crashes on these): an error table without a
// string or number `err`, one whose fields raise when read, and Lua running out of memory while
// the engine prepares a script's arguments or converts its reply. Our own texts.
inline constexpr std::string_view kScriptErrorNoErrField =
    "ERR Error running script: the error object has no 'err' field";
inline constexpr std::string_view kScriptErrorUnreadable =
    "ERR Error running script: reading its error object raised an error";
inline constexpr std::string_view kScriptOutOfMemory =
    "ERR Error running script: Lua is out of memory";
// redis.call / redis.pcall refusals (the error table's text).
inline constexpr std::string_view kScriptNoArgs =
    "ERR Please specify at least one argument for this redis lib call";
inline constexpr std::string_view kScriptCallOutside =
    "ERR redis.call/pcall can only be called inside a script invocation";
inline constexpr std::string_view kScriptBadArgs =
    "ERR Lua redis lib command arguments must be strings or integers";
// redis.acl_check_cmd of a command (or container|subcommand) that does not exist.
inline constexpr std::string_view kScriptAclCheckUnknown =
    "ERR Invalid command passed to redis.acl_check_cmd()";
inline constexpr std::string_view kScriptUnknownCommand =
    "ERR Unknown Redis command called from script";
inline constexpr std::string_view kScriptWrongArgs =
    "ERR Wrong number of args calling Redis command from script";
inline constexpr std::string_view kScriptCommandNotAllowed =
    "ERR This Redis command is not allowed from script";
inline constexpr std::string_view kScriptReadOnlyWrite =
    "ERR Write commands are not allowed from read-only scripts.";
// A command without the stale flag, run by a script on a replica serving no stale data while
// its link is down.
inline constexpr std::string_view kScriptStaleReplica =
    "ERR Can not execute the command on a stale replica";
inline constexpr std::string_view kScriptFlushOption =
    "ERR SCRIPT FLUSH only support SYNC|ASYNC option";

// ---- scripting: busy scripts, SCRIPT KILL / FUNCTION KILL ----
inline constexpr std::string_view kScriptNotBusy = "NOTBUSY No scripts in execution right now.";
inline constexpr std::string_view kScriptUnkillable =
    "UNKILLABLE Sorry the script already executed write commands against the dataset. You can "
    "either wait the script termination or kill the server in a hard way using the SHUTDOWN "
    "NOSAVE command.";
inline constexpr std::string_view kBusyEval =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
inline constexpr std::string_view kBusyFunction =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
inline constexpr std::string_view kLoading = "LOADING Redis is loading the dataset in memory";
inline constexpr std::string_view kScriptKilled = "ERR Script killed by user with SCRIPT KILL...";

// ---- functions: FUNCTION, FCALL ----
// The library's shebang (FUNCTION LOAD, FUNCTION RESTORE).
inline constexpr std::string_view kFunctionMissingMetadata = "ERR Missing library metadata";
inline constexpr std::string_view kFunctionInvalidMetadata = "ERR Invalid library metadata";
inline constexpr std::string_view kFunctionShebangNoName = "ERR Library name was not given";
inline constexpr std::string_view kFunctionNameGivenTwice =
    "ERR Invalid metadata value, name argument was given multiple times";
// Redis 7.0 says "Library names" for function names too.
inline constexpr std::string_view kFunctionBadName =
    "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least "
    "one character long";
inline std::string FunctionInvalidMetadataValue(std::string_view word) {
  return "ERR Invalid metadata value given: " + std::string(UpToNul(word));
}
inline std::string FunctionEngineNotFound(std::string_view engine) {
  return "ERR Engine '" + std::string(UpToNul(engine)) + "' not found";
}
// Arguments end at a NUL byte, as Redis's %s formats them.
// Collisions: LOAD quotes the library name, RESTORE APPEND does not.
inline std::string FunctionLibraryExists(std::string_view name) {
  return "ERR Library '" + std::string(UpToNul(name)) + "' already exists";
}
inline std::string FunctionLibraryExistsBare(std::string_view name) {
  return "ERR Library " + std::string(UpToNul(name)) + " already exists";
}
inline std::string FunctionExists(std::string_view name) {
  return "ERR Function " + std::string(UpToNul(name)) + " already exists";
}
// Loading a library's code.
inline constexpr std::string_view kFunctionNoneRegistered = "ERR No functions registered";
inline constexpr std::string_view kFunctionCompilePrefix = "ERR Error compiling function: ";
inline constexpr std::string_view kFunctionRegisterPrefix = "ERR Error registering functions: ";
inline constexpr std::string_view kFunctionLoadTimeout = "ERR FUNCTION LOAD timeout";
// redis.register_function (after kFunctionRegisterPrefix).
inline constexpr std::string_view kRegisterDuplicate = "ERR Function already exists in the library";
inline constexpr std::string_view kRegisterArgCount =
    "ERR wrong number of arguments to redis.register_function";
inline constexpr std::string_view kRegisterSingleArg =
    "ERR calling redis.register_function with a single argument is only applicable to Lua table "
    "(representing named arguments).";
inline constexpr std::string_view kRegisterFirstArg =
    "ERR first argument to redis.register_function must be a string";
inline constexpr std::string_view kRegisterSecondArg =
    "ERR second argument to redis.register_function must be a function";
inline constexpr std::string_view kRegisterNameType =
    "ERR function_name argument given to redis.register_function must be a string";
inline constexpr std::string_view kRegisterCallbackType =
    "ERR callback argument given to redis.register_function must be a function";
inline constexpr std::string_view kRegisterFlagsType =
    "ERR flags argument to redis.register_function must be a table representing function flags";
inline constexpr std::string_view kRegisterUnknownFlag = "ERR unknown flag given";
inline constexpr std::string_view kRegisterUnknownArg =
    "ERR unknown argument given to redis.register_function";
inline constexpr std::string_view kRegisterNoName =
    "ERR redis.register_function must get a function name argument";
inline constexpr std::string_view kRegisterNoCallback =
    "ERR redis.register_function must get a callback argument";
inline constexpr std::string_view kRegisterDescriptionType =
    "ERR description argument given to redis.register_function must be a string";
// Called through a reference kept past the load (raised inside the running function).
inline constexpr std::string_view kRegisterOutsideLoad =
    "ERR redis.register_function can only be called on FUNCTION LOAD command";
// FCALL, FUNCTION DELETE / FLUSH / LIST / LOAD / RESTORE.
inline constexpr std::string_view kFunctionNotFound = "ERR Function not found";
inline constexpr std::string_view kFunctionBadNumKeys = "ERR Bad number of keys provided";
inline constexpr std::string_view kFunctionLibraryNotFound = "ERR Library not found";
// FUNCTION FLUSH's mode, FUNCTION LIST's LIBRARYNAME without a pattern.
inline constexpr std::string_view kFunctionFlushMode =
    "ERR FUNCTION FLUSH only supports SYNC|ASYNC option";
inline constexpr std::string_view kFunctionNoLibraryName =
    "ERR library name argument was not given";
inline std::string FunctionLoadUnknownOption(std::string_view arg) {
  return "ERR Unknown option given: " + std::string(TrailingArg(arg));
}
// FUNCTION RESTORE reads DUMP's payload format, and refuses a bad one with DUMP's words.
inline constexpr std::string_view kFunctionBadPayload = kDumpPayloadWrong;
inline constexpr std::string_view kFunctionRestorePolicy =
    "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.";
inline constexpr std::string_view kFunctionNotAFunction = "ERR given type is not a function";
inline constexpr std::string_view kFunctionLoadPayload = "ERR Failed loading library payload";
inline constexpr std::string_view kFunctionLoadName = "ERR Failed loading library name";
inline constexpr std::string_view kFunctionLoadEngine = "ERR Failed loading engine name";
inline constexpr std::string_view kFunctionLoadDescription =
    "ERR Failed loading library description";
inline constexpr std::string_view kFunctionLoadBlob = "ERR Failed loading library blob";

}  // namespace redistp::err
