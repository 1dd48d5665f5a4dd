// Every client-visible error text, byte-identical to Redis 7.0's (without '-' and CRLF).
// Texts that need the command name or an argument are formatted by the helpers at the bottom.
#pragma once

#include <string>
#include <string_view>

namespace redistp::err {

inline constexpr std::string_view kSyntax = "ERR syntax error";
// Argument checks shared by several families (LMPOP/ZMPOP/SINTERCARD/ZINTERCARD, the random
// picks' range checks).
inline constexpr std::string_view kLimitNegative = "ERR LIMIT can't be negative";
inline constexpr std::string_view kValueOutOfRange = "ERR value is out of range";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kNoSuchKey = "ERR no such key";
inline constexpr std::string_view kOverflow = "ERR increment or decrement would overflow";
inline constexpr std::string_view kIncrFloatNanInf = "ERR increment would produce NaN or Infinity";
inline constexpr std::string_view kDbIndexRange = "ERR DB index is out of range";
inline constexpr std::string_view kInvalidDbIndex = "ERR invalid DB index";
inline constexpr std::string_view kStringTooLong =
    "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
inline constexpr std::string_view kBitOffset = "ERR bit offset is not an integer or out of range";
inline constexpr std::string_view kBitValue = "ERR bit is not an integer or out of range";
inline constexpr std::string_view kOffsetRange = "ERR offset is out of range";
inline constexpr std::string_view kNoAuth = "NOAUTH Authentication required.";
inline constexpr std::string_view kWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";
inline constexpr std::string_view kAuthNoPassword =
    "ERR AUTH <password> called without any password configured for the default user. Are you "
    "sure your configuration is correct?";
inline constexpr std::string_view kMaxClients = "ERR max number of clients reached";
inline constexpr std::string_view kInvalidCursor = "ERR invalid cursor";
inline constexpr std::string_view kSameObject = "ERR source and destination objects are the same";
inline constexpr std::string_view kTimeoutNotFloat = "ERR timeout is not a float or out of range";
inline constexpr std::string_view kTimeoutNegative = "ERR timeout is negative";
inline constexpr std::string_view kNoProto = "NOPROTO unsupported protocol version";
inline constexpr std::string_view kProtoInvalidMultibulk =
    "ERR Protocol error: invalid multibulk length";
inline constexpr std::string_view kProtoInvalidBulk = "ERR Protocol error: invalid bulk length";
inline constexpr std::string_view kProtoUnauthMultibulk =
    "ERR Protocol error: unauthenticated multibulk length";
inline constexpr std::string_view kProtoUnauthBulk =
    "ERR Protocol error: unauthenticated bulk length";
inline constexpr std::string_view kProtoBigMultibulk =
    "ERR Protocol error: too big mbulk count string";
inline constexpr std::string_view kProtoBigBulk = "ERR Protocol error: too big bulk count string";
inline constexpr std::string_view kProtoBigInline = "ERR Protocol error: too big inline request";
inline constexpr std::string_view kProtoUnbalancedQuotes =
    "ERR Protocol error: unbalanced quotes in request";

// CLIENT, MONITOR, SLOWLOG, LATENCY (src/commands/client_cmd.cc, introspection.cc).
inline constexpr std::string_view kBadClientName =
    "ERR Client names cannot contain spaces, newlines or special characters.";
inline constexpr std::string_view kNoSuchClient = "ERR No such client";
inline constexpr std::string_view kInvalidClientId = "ERR Invalid client ID";
inline constexpr std::string_view kClientIdRange = "ERR client-id should be greater than 0";
inline constexpr std::string_view kTimeoutNotInteger =
    "ERR timeout is not an integer or out of range";
inline constexpr std::string_view kPauseMode = "ERR CLIENT PAUSE mode must be WRITE or ALL";
inline constexpr std::string_view kUnblockReason =
    "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR";
inline constexpr std::string_view kSlowlogCount = "ERR count should be greater than or equal to -1";
inline constexpr std::string_view kReplicaKeyspace = "ERR Replica can't interact with the keyspace";

inline constexpr std::string_view kInt32Range =
    "ERR value is out of range, value must between -2147483648 and 2147483647";
inline constexpr std::string_view kInvalidFirstDbIndex = "ERR invalid first DB index";
inline constexpr std::string_view kInvalidSecondDbIndex = "ERR invalid second DB index";
inline constexpr std::string_view kExpireNxConflict =
    "ERR NX and XX, GT or LT options at the same time are not compatible";
inline constexpr std::string_view kExpireGtLtConflict =
    "ERR GT and LT options at the same time are not compatible";
inline constexpr std::string_view kLfuNotSelected =
    "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that "
    "when switching between policies at runtime LRU and LFU data will take some time to adjust.";
inline constexpr std::string_view kLfuSelected =
    "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
    "switching between policies at runtime LRU and LFU data will take some time to adjust.";

// Bitmap family (SETBIT ... BITFIELD).
inline constexpr std::string_view kBitArgument = "ERR The bit argument must be 1 or 0.";
inline constexpr std::string_view kBitOpNotSingle =
    "ERR BITOP NOT must be called with a single source key.";
inline constexpr std::string_view kBitfieldType =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
    "i64 is.";
inline constexpr std::string_view kBitfieldOverflowType = "ERR Invalid OVERFLOW type specified";
inline constexpr std::string_view kBitfieldRoGetOnly =
    "ERR BITFIELD_RO only supports the GET subcommand";

// "ERR wrong number of arguments for 'get' command"
inline std::string WrongArity(std::string_view full_name) {
  return "ERR wrong number of arguments for '" + std::string(full_name) + "' command";
}
// A client argument as Redis prints it into an error: with C's %s, which stops at a NUL byte.
inline std::string_view UpToNul(std::string_view arg) { return arg.substr(0, arg.find('\0')); }
// "ERR unknown subcommand 'foo'. Try CONFIG HELP."
inline std::string UnknownSubcommand(std::string_view sub, std::string_view container_upper) {
  return "ERR unknown subcommand '" + std::string(UpToNul(sub)) + "'. Try " +
         std::string(container_upper) + " HELP.";
}
// "ERR invalid expire time in 'set' command"
inline std::string InvalidExpire(std::string_view cmd) {
  return "ERR invalid expire time in '" + std::string(cmd) + "' command";
}
// "ERR unknown subcommand or wrong number of arguments for 'pause'. Try CLIENT HELP."
inline std::string SubcommandSyntax(std::string_view sub, std::string_view container_upper) {
  return "ERR unknown subcommand or wrong number of arguments for '" +
         std::string(UpToNul(sub).substr(0, 128)) + "'. Try " + std::string(container_upper) +
         " HELP.";
}
// "ERR Unknown client type 'foo'"
inline std::string UnknownClientType(std::string_view type) {
  return "ERR Unknown client type '" + std::string(UpToNul(type)) + "'";
}
// "ERR No such user 'bob'"
inline std::string NoSuchUser(std::string_view user) {
  return "ERR No such user '" + std::string(UpToNul(user)) + "'";
}
inline std::string ProtoExpectedDollar(char got) {
  return std::string("ERR Protocol error: expected '$', got '") + got + "'";
}

// An argument that ends an error line, as Redis's addReplyErrorFormat leaves it: cut at a NUL,
// and with trailing CR/LF trimmed (the ones inside become spaces when the line is written).
inline std::string_view TrailingArg(std::string_view arg) {
  arg = UpToNul(arg);
  while (!arg.empty() && (arg.back() == '\r' || arg.back() == '\n')) arg.remove_suffix(1);
  return arg;
}
// "ERR Unsupported option foo" (EXPIRE family)
inline std::string UnsupportedOption(std::string_view opt) {
  return "ERR Unsupported option " + std::string(TrailingArg(opt));
}
// "ERR Unknown argument foo" (FUNCTION LIST; unlike the EXPIRE options, Redis keeps a trailing
// CR/LF here, written as spaces)
inline std::string UnknownArgument(std::string_view arg) {
  return "ERR Unknown argument " + std::string(UpToNul(arg));
}

// String family (SET/INCR/LCS).
inline constexpr std::string_view kDecrOverflow = "ERR decrement would overflow";
inline constexpr std::string_view kLcsNotStrings =
    "ERR The specified keys must contain string values";
inline constexpr std::string_view kLcsIdxAndLen =
    "ERR If you want both the length and indexes, please just use IDX.";
inline constexpr std::string_view kLcsTooLong = "ERR String too long for LCS";
inline constexpr std::string_view kLcsOverLimit =
    "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len";
inline constexpr std::string_view kLcsNoMemory =
    "ERR Insufficient memory, failed allocating transient memory for LCS";

// Transactions.
inline constexpr std::string_view kMultiNested = "ERR MULTI calls can not be nested";
inline constexpr std::string_view kExecWithoutMulti = "ERR EXEC without MULTI";
inline constexpr std::string_view kDiscardWithoutMulti = "ERR DISCARD without MULTI";
inline constexpr std::string_view kWatchInMulti = "ERR WATCH inside MULTI is not allowed";
inline constexpr std::string_view kExecAbortQueued =
    "EXECABORT Transaction discarded because of previous errors.";
inline constexpr std::string_view kNotAllowedInMulti =
    "ERR Command not allowed inside a transaction";
// "EXECABORT Transaction discarded because of: <reason without its ERR prefix>"
inline std::string ExecAbort(std::string_view reason) {
  if (reason.substr(0, 4) == "ERR ") reason.remove_prefix(4);
  return "EXECABORT Transaction discarded because of: " + std::string(reason);
}

// Connection commands.
inline constexpr std::string_view kIntRange =
    "ERR value is out of range, value must between -2147483648 and 2147483647";
inline constexpr std::string_view kHelloProtoNotInt =
    "ERR Protocol version is not an integer or out of range";
inline constexpr std::string_view kHelloNoAuth =
    "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
    "AUTH <user> <pass> option can be used to authenticate the client and select the RESP "
    "protocol version at the same time";
inline std::string HelloBadOption(std::string_view opt) {
  return "ERR Syntax error in HELLO option '" + std::string(UpToNul(opt)) + "'";
}

// Blocking and temporary keys.
inline constexpr std::string_view kUnblocked = "UNBLOCKED client unblocked via CLIENT UNBLOCK";
inline constexpr std::string_view kLeaseNotInteger = "ERR lease is not an integer or out of range";
// redis-tp: SETTP/BSETTP ... FENCE when the reservation of tokens could not be made durable
// (watch/fence.h); `why` is the file error.
inline std::string FenceUnavailable(std::string_view why) {
  return "ERR fencing token unavailable: the reservation could not be made durable (" +
         std::string(why) + ")";
}

// Server commands (SHUTDOWN, MEMORY, FUNCTION, DEBUG, COMMAND, CONFIG).
inline constexpr std::string_view kNoShutdownInProgress = "ERR No shutdown in progress.";
inline constexpr std::string_view kShutdownFailed = "ERR Errors trying to SHUTDOWN. Check logs.";
inline constexpr std::string_view kPurgeFailed = "ERR Error purging dirty pages";
inline constexpr std::string_view kFunctionFlushMode =
    "ERR FUNCTION FLUSH only supports SYNC|ASYNC option";
inline constexpr std::string_view kFunctionNoLibraryName =
    "ERR library name argument was not given";
inline constexpr std::string_view kDebugNotAllowed =
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";
inline constexpr std::string_view kNotPositive = "ERR value is out of range, must be positive";
inline constexpr std::string_view kResp2NotSupported = "ERR RESP2 is not supported by this command";
inline constexpr std::string_view kDebugProtocolType =
    "ERR Wrong protocol type name. Please use one of the following: "
    "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false";
inline constexpr std::string_view kInvalidCommand = "ERR Invalid command specified";
inline constexpr std::string_view kNoKeyArguments = "ERR The command has no key arguments";
inline constexpr std::string_view kInvalidArgCount =
    "ERR Invalid number of arguments specified for command";
inline constexpr std::string_view kInvalidArguments = "ERR Invalid arguments specified for command";
inline constexpr std::string_view kConfigRewritePrefix = "ERR Rewriting config file: ";
inline constexpr std::string_view kNoConfigFile = "ERR The server is running without a config file";
// ---- hashes (issue 8) ----
inline constexpr std::string_view kHashValueNotInteger = "ERR hash value is not an integer";
inline constexpr std::string_view kHashValueNotFloat = "ERR hash value is not a float";
// HINCRBYFLOAT's increment itself is NaN or infinite.
inline constexpr std::string_view kHashIncrNanInf = "ERR value is NaN or Infinity";
// HRANDFIELD's count is INT64_MIN (it must be negatable) ...
inline constexpr std::string_view kHashRandCountRange =
    "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807";
// ... or, with WITHVALUES, its double (the reply's length in RESP2) would not fit:
// kValueOutOfRange.

// ---- lists (issue 8) ----
inline constexpr std::string_view kIndexOutOfRange = "ERR index out of range";
inline constexpr std::string_view kLPosRankZero =
    "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use "
    "negative to start from the end of the list";
inline constexpr std::string_view kLPosCountNegative = "ERR COUNT can't be negative";
inline constexpr std::string_view kLPosMaxlenNegative = "ERR MAXLEN can't be negative";
// LMPOP/BLMPOP (and, with the same words, ZMPOP/BZMPOP).
inline constexpr std::string_view kNumKeysPositive = "ERR numkeys should be greater than 0";
inline constexpr std::string_view kCountPositive = "ERR count should be greater than 0";

// ---- sets (issue 8) ----
inline constexpr std::string_view kSRandMemberCountRange =
    "ERR value is out of range, value must between -9223372036854775807 and "
    "9223372036854775807";
inline constexpr std::string_view kSetNumKeysTooMany =
    "ERR Number of keys can't be greater than number of args";

// ---- sorted sets (issue 8) ----
inline constexpr std::string_view kZAddXxNx =
    "ERR XX and NX options at the same time are not compatible";
inline constexpr std::string_view kZAddGtLtNx =
    "ERR GT, LT, and/or NX options at the same time are not compatible";
inline constexpr std::string_view kZAddIncrPairs =
    "ERR INCR option supports a single increment-element pair";
inline constexpr std::string_view kZAddNaN = "ERR resulting score is not a number (NaN)";
inline constexpr std::string_view kZMinMaxNotFloat = "ERR min or max is not a float";
inline constexpr std::string_view kZMinMaxNotLex = "ERR min or max not valid string range item";
inline constexpr std::string_view kZLimitNeedsBy =
    "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX";
inline constexpr std::string_view kZWithScoresByLex =
    "ERR syntax error, WITHSCORES not supported in combination with BYLEX";

// ---- sorted-set operations (issue 8) ----
// ZMPOP/BZMPOP, ZINTERCARD, ZRANDMEMBER, ZUNION/ZINTER/ZDIFF[STORE] (src/commands/zset_*.cc).
inline constexpr std::string_view kZOpsWeightNotFloat = "ERR weight value is not a float";
inline constexpr std::string_view kZOpsRandCountRange =
    "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807";
// "ERR at least 1 input key is needed for 'zunionstore' command"
inline std::string ZOpsNoInputKey(std::string_view command) {
  return "ERR at least 1 input key is needed for '" + std::string(command) + "' command";
}

// ---- SORT and the aggregate SCANs (issue 8) ----
// A numeric SORT met an element (or BY value) that is not a number.
inline constexpr std::string_view kSortNotDouble =
    "ERR One or more scores can't be converted into double";

// ---- Pub/Sub (issue 9) ----
// SSUBSCRIBE from a context that expects one reply per command (EXEC, scripts).
inline constexpr std::string_view kSSubscribeDenyBlocking =
    "ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client";
// "ERR Can't execute 'get': only (P|S)SUBSCRIBE / ..." (RESP2 subscribed mode; the command's
// full name, "client|info" for a subcommand).
inline std::string SubscribedContext(std::string_view full_name) {
  return "ERR Can't execute '" + std::string(full_name) +
         "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this "
         "context";
}

// ---- keyspace notifications (issue 9) ----

// ---- client-side caching (issue 9) ----
inline constexpr std::string_view kTrackingPrefixNeedsBcast =
    "ERR PREFIX option requires BCAST mode to be enabled";
inline constexpr std::string_view kTrackingBcastSwitch =
    "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then "
    "re-enabling it with a different mode.";
inline constexpr std::string_view kTrackingBcastOptInOut =
    "ERR OPTIN and OPTOUT are not compatible with BCAST";
inline constexpr std::string_view kTrackingOptInAndOut =
    "ERR You can't specify both OPTIN mode and OPTOUT mode";
inline constexpr std::string_view kTrackingOptSwitch =
    "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then "
    "re-enabling it with a different mode.";
inline constexpr std::string_view kTrackingRedirectTwice =
    "ERR A client can only redirect to a single other client";
inline constexpr std::string_view kTrackingNoSuchRedirect =
    "ERR The client ID you want redirect to does not exist";
inline constexpr std::string_view kCachingNotTracking =
    "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or "
    "OPTOUT mode enabled";
inline constexpr std::string_view kCachingYesNeedsOptin =
    "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.";
inline constexpr std::string_view kCachingNoNeedsOptout =
    "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.";
// "Prefix 'x' overlaps with an existing prefix 'y'..." (`existing`: one the client registered
// before) or "... with another provided prefix 'y'..." (two of the same command). Redis prints
// the prefixes as C strings: up to a NUL byte.
inline std::string TrackingPrefixOverlap(std::string_view prefix, std::string_view other,
                                         bool existing) {
  std::string s = "ERR Prefix '";
  s.append(prefix.substr(0, prefix.find('\0')));
  s.append(existing ? "' overlaps with an existing prefix '"
                    : "' overlaps with another provided prefix '");
  s.append(other.substr(0, other.find('\0')));
  s.append("'. Prefixes for a single client must not overlap.");
  return s;
}

// ---- existence events over Pub/Sub (issue 9) ----

// ---- scripting: EVAL, SCRIPT, the Lua environment (issue 10) ----
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
inline constexpr std::string_view kScriptUnknownCommand =
    "ERR Unknown Redis command called from script";
inline constexpr std::string_view kScriptWrongArgs =
    "ERR Wrong number of args calling Redis command from script";
inline constexpr std::string_view kScriptCommandNotAllowed =
    "ERR This Redis command is not allowed from script";
inline constexpr std::string_view kScriptReadOnlyWrite =
    "ERR Write commands are not allowed from read-only scripts.";
inline constexpr std::string_view kScriptFlushOption =
    "ERR SCRIPT FLUSH only support SYNC|ASYNC option";

// ---- scripting: busy scripts, SCRIPT KILL / FUNCTION KILL (issue 10) ----
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

// ---- functions: FUNCTION, FCALL (issue 10) ----
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
// (FUNCTION FLUSH's mode and LIST's missing pattern: kFunctionFlushMode, kFunctionNoLibraryName.)
inline std::string FunctionLoadUnknownOption(std::string_view arg) {
  return "ERR Unknown option given: " + std::string(UpToNul(arg));
}
inline constexpr std::string_view kFunctionBadPayload =
    "ERR DUMP payload version or checksum are wrong";
inline constexpr std::string_view kFunctionRestorePolicy =
    "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.";
inline constexpr std::string_view kFunctionNotAFunction = "ERR given type is not a function";
inline constexpr std::string_view kFunctionLoadPayload = "ERR Failed loading library payload";
inline constexpr std::string_view kFunctionLoadName = "ERR Failed loading library name";
inline constexpr std::string_view kFunctionLoadEngine = "ERR Failed loading engine name";
inline constexpr std::string_view kFunctionLoadDescription =
    "ERR Failed loading library description";
inline constexpr std::string_view kFunctionLoadBlob = "ERR Failed loading library blob";

// ---- maxmemory ----
inline constexpr std::string_view kOom = "OOM command not allowed when used memory > 'maxmemory'.";

// ---- end of family sections ----

// "ERR CONFIG SET failed (possibly related to argument 'x') - <why>"
inline std::string ConfigSetFailed(std::string_view name, std::string_view why) {
  return "ERR CONFIG SET failed (possibly related to argument '" + std::string(UpToNul(name)) +
         "') - " + std::string(why);
}
// "ERR Unknown option or number of arguments for CONFIG SET - 'x'"
inline std::string ConfigSetUnknown(std::string_view name) {
  return "ERR Unknown option or number of arguments for CONFIG SET - '" +
         std::string(UpToNul(name)) + "'";
}
// "ERR unknown command 'foo', with args beginning with: 'a' 'b' " (each part cut at 128 bytes)
inline std::string UnknownCommand(std::string_view name, std::string_view quoted_args) {
  return "ERR unknown command '" + std::string(UpToNul(name).substr(0, 128)) +
         "', with args beginning with: " + std::string(quoted_args);
}

// ---- streams: the type, XADD ... XSETID, XREAD (issue 11) ----
inline constexpr std::string_view kStreamInvalidId =
    "ERR Invalid stream ID specified as stream command argument";
// XADD/XTRIM options (f/xbasic).
inline constexpr std::string_view kStreamMaxlenAndMinid =
    "ERR syntax error, MAXLEN and MINID options at the same time are not compatible";
inline constexpr std::string_view kStreamNegativeMaxlen = "ERR The MAXLEN argument must be >= 0.";
inline constexpr std::string_view kStreamNegativeLimit = "ERR The LIMIT argument must be >= 0.";
inline constexpr std::string_view kStreamLimitWithoutStrategy =
    "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy";
inline constexpr std::string_view kStreamLimitWithoutApprox =
    "ERR syntax error, LIMIT cannot be used without the special ~ option";
inline constexpr std::string_view kStreamXTrimWithoutStrategy =
    "ERR syntax error, XTRIM must be called with a trimming strategy";
// XADD ids and sizes.
inline constexpr std::string_view kStreamXAddIdZero =
    "ERR The ID specified in XADD must be greater than 0-0";
inline constexpr std::string_view kStreamXAddIdTooSmall =
    "ERR The ID specified in XADD is equal or smaller than the target stream top item";
inline constexpr std::string_view kStreamExhausted =
    "ERR The stream has exhausted the last possible ID, unable to add more items";
inline constexpr std::string_view kStreamElementsTooLarge =
    "ERR Elements are too large to be stored";
// XRANGE/XREVRANGE exclusive ends that cannot move inwards.
inline constexpr std::string_view kStreamInvalidStartId = "ERR invalid start ID for the interval";
inline constexpr std::string_view kStreamInvalidEndId = "ERR invalid end ID for the interval";
// XSETID.
inline constexpr std::string_view kStreamEntriesAddedNegative =
    "ERR entries_added must be positive";
inline constexpr std::string_view kStreamSetIdBelowMaxDeleted =
    "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id";
inline constexpr std::string_view kStreamSetIdBelowTop =
    "ERR The ID specified in XSETID is smaller than the target stream top item";
inline constexpr std::string_view kStreamEntriesAddedBelowLength =
    "ERR The entries_added specified in XSETID is smaller than the target stream length";
// XINFO: a group the key does not have ("NOGROUP No such consumer group 'g' for key name 'k'").
inline std::string StreamNoGroup(std::string_view key, std::string_view group) {
  return "NOGROUP No such consumer group '" + std::string(UpToNul(group)) + "' for key name '" +
         std::string(UpToNul(key)) + "'";
}
// XREAD, XREADGROUP
inline constexpr std::string_view kXReadUnbalanced =
    "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.";
inline constexpr std::string_view kXReadGroupOption =
    "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.";
inline constexpr std::string_view kXReadNoAckOption =
    "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.";
inline constexpr std::string_view kXReadGroupMissingGroup =
    "ERR Missing GROUP option for XREADGROUP";
inline constexpr std::string_view kXReadGroupDollar =
    "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of "
    "this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would "
    "just return an empty result set.";
inline constexpr std::string_view kXReadGreaterId =
    "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> "
    "<consumer> option.";
// A blocked XREADGROUP whose stream was deleted (or became another type) / whose group was
// destroyed.
inline constexpr std::string_view kXReadGroupKeyGone = "UNBLOCKED the stream key no longer exists";
inline constexpr std::string_view kXReadGroupGroupGone =
    "NOGROUP the consumer group this client was blocked on no longer exists";
// "ERR xread command is not allowed with BLOCK option from scripts"
inline std::string XReadBlockInScript(std::string_view command) {
  return "ERR " + std::string(command) + " command is not allowed with BLOCK option from scripts";
}
// "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option"
inline std::string XReadGroupNoGroup(std::string_view key, std::string_view group) {
  return "NOGROUP No such key '" + std::string(UpToNul(key)) + "' or consumer group '" +
         std::string(UpToNul(group)) + "' in XREADGROUP with GROUP option";
}

// ---- streams: consumer groups (issue 11) ----
// XGROUP (f/xgroup).
inline constexpr std::string_view kXGroupKeyMissing =
    "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use "
    "the MKSTREAM option to create an empty stream automatically.";
inline constexpr std::string_view kXGroupBusyGroup = "BUSYGROUP Consumer Group name already exists";
inline constexpr std::string_view kXGroupEntriesRead =
    "ERR value for ENTRIESREAD must be positive or -1";
// XPENDING, XCLAIM, XAUTOCLAIM: "NOGROUP No such key 'k' or consumer group 'g'".
inline std::string XClaimNoGroup(std::string_view key, std::string_view group) {
  return "NOGROUP No such key '" + std::string(UpToNul(key)) + "' or consumer group '" +
         std::string(UpToNul(group)) + "'";
}
// XGROUP's missing group is StreamNoGroup; XPENDING's and XAUTOCLAIM's exclusive ids that
// cannot move inwards are kStreamInvalidStartId/kStreamInvalidEndId (above).
// XCLAIM.
inline constexpr std::string_view kXClaimMinIdle = "ERR Invalid min-idle-time argument for XCLAIM";
inline constexpr std::string_view kXClaimIdle = "ERR Invalid IDLE option argument for XCLAIM";
inline constexpr std::string_view kXClaimTime = "ERR Invalid TIME option argument for XCLAIM";
inline constexpr std::string_view kXClaimRetryCount =
    "ERR Invalid RETRYCOUNT option argument for XCLAIM";
// "ERR Unrecognized XCLAIM option 'foo'"
inline std::string XClaimUnknownOption(std::string_view opt) {
  return "ERR Unrecognized XCLAIM option '" + std::string(UpToNul(opt)) + "'";
}
// XAUTOCLAIM.
inline constexpr std::string_view kXAutoClaimMinIdle =
    "ERR Invalid min-idle-time argument for XAUTOCLAIM";
inline constexpr std::string_view kXAutoClaimCount = "ERR COUNT must be > 0";
inline constexpr std::string_view kXAutoClaimCountTooHigh =
    "ERR Insufficient memory, failed allocating transient memory, COUNT too high.";

// ---- HyperLogLog (issue 11) ----
// A string that is not in the HYLL representation (bad size, magic or encoding byte).
inline constexpr std::string_view kNotHll =
    "WRONGTYPE Key is not a valid HyperLogLog string value.";
// A sparse HLL whose opcodes do not cover exactly 16384 registers.
inline constexpr std::string_view kCorruptHll = "INVALIDOBJ Corrupted HLL object detected";
inline constexpr std::string_view kPfDebugNoKey = "ERR The specified key does not exist";
inline constexpr std::string_view kHllNotSparse = "ERR HLL encoding is not sparse";
// "ERR Unknown PFDEBUG subcommand 'x'"
inline std::string PfDebugUnknown(std::string_view sub) {
  return "ERR Unknown PFDEBUG subcommand '" + std::string(UpToNul(sub)) + "'";
}
// PFSELFTEST's failure: "TESTFAILED <what>".
inline std::string HllSelfTestFailed(std::string_view what) {
  return "TESTFAILED " + std::string(what);
}

// ---- geo (issue 11) ----
inline constexpr std::string_view kGeoUnit =
    "ERR unsupported unit provided. please use M, KM, FT, MI";
inline constexpr std::string_view kGeoNeedRadius = "ERR need numeric radius";
inline constexpr std::string_view kGeoNegativeRadius = "ERR radius cannot be negative";
inline constexpr std::string_view kGeoNeedWidth = "ERR need numeric width";
inline constexpr std::string_view kGeoNeedHeight = "ERR need numeric height";
inline constexpr std::string_view kGeoNegativeBox = "ERR height or width cannot be negative";
inline constexpr std::string_view kGeoMemberNotFound = "ERR could not decode requested zset member";
inline constexpr std::string_view kGeoCountNotPositive = "ERR COUNT must be > 0";
inline constexpr std::string_view kGeoAnyNeedsCount =
    "ERR the ANY argument requires COUNT argument";
inline constexpr std::string_view kGeoRadiusStoreWith =
    "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD "
    "options";
inline constexpr std::string_view kGeoSearchStoreWith =
    "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options";
// "ERR invalid longitude,latitude pair 200.000000,2.000000" (both with "%f")
// (std::to_string formats a double exactly as "%f" does).
inline std::string GeoInvalidPair(double lon, double lat) {
  return "ERR invalid longitude,latitude pair " + std::to_string(lon) + "," + std::to_string(lat);
}
// "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOSEARCH" (the command
// name as the client spelled it)
inline std::string GeoNeedFrom(std::string_view cmd) {
  return "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + std::string(cmd);
}
// "ERR exactly one of BYRADIUS and BYBOX can be specified for GEOSEARCH"
inline std::string GeoNeedBy(std::string_view cmd) {
  return "ERR exactly one of BYRADIUS and BYBOX can be specified for " + std::string(cmd);
}

// (end of issue 11)

// ---- persistence (issue 12) ----
// RDB: SAVE, BGSAVE, DEBUG RELOAD, loading:
inline constexpr std::string_view kDebugReloadOptions =
    "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.";
inline constexpr std::string_view kBgsaveInProgress = "ERR Background save already in progress";
inline constexpr std::string_view kBgsaveOtherChild =
    "ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in "
    "order to schedule a BGSAVE whenever possible.";

// saving: save points, stop-writes-on-bgsave-error, SHUTDOWN, LASTSAVE:
// Writes (and PING) refused after a failed BGSAVE, while stop-writes-on-bgsave-error is on.
inline constexpr std::string_view kMisconfRdb =
    "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to "
    "disk. Commands that may modify the data set are disabled, because this instance is "
    "configured to report errors during writes if RDB snapshotting fails "
    "(stop-writes-on-bgsave-error option). Please check the Redis logs for details about the "
    "RDB error.";

// AOF:
inline constexpr std::string_view kAofRewriteInProgress =
    "ERR Background append only file rewriting already in progress";
inline constexpr std::string_view kAofRewriteFailed =
    "ERR Can't execute an AOF background rewriting. Please check the server logs for more "
    "information.";

// DUMP, RESTORE, MIGRATE:
inline constexpr std::string_view kDumpPayloadWrong = kFunctionBadPayload;
inline constexpr std::string_view kRestoreBadData = "ERR Bad data format";
inline constexpr std::string_view kRestoreBusyKey = "BUSYKEY Target key name already exists.";
inline constexpr std::string_view kRestoreInvalidTtl = "ERR Invalid TTL value, must be >= 0";
inline constexpr std::string_view kRestoreInvalidIdle = "ERR Invalid IDLETIME value, must be >= 0";
inline constexpr std::string_view kRestoreInvalidFreq =
    "ERR Invalid FREQ value, must be >= 0 and <= 255";
inline constexpr std::string_view kMigrateKeysNotEmpty =
    "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string";
// Redis writes these two with their own code (no "ERR" prefix).
inline constexpr std::string_view kMigrateConnectError =
    "IOERR error or timeout connecting to the client";
inline std::string MigrateIoError(bool writing) {
  return std::string("IOERR error or timeout ") + (writing ? "writing" : "reading") +
         " to target instance";
}
inline std::string MigrateTargetError(std::string_view line) {
  return "ERR Target instance replied with error: " + std::string(line);
}

// (end of issue 12)

}  // namespace redistp::err
