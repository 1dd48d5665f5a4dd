// Error texts of the server's own machinery: connections and CLIENT, transactions, blocking and
// temporary keys, the server and introspection commands, maxmemory, Pub/Sub, client-side
// caching and persistence. One of the headers errors.h gathers; every text byte-identical to
// Redis 7.0's (without '-' and CRLF), but for redis-tp's own, which say so.
#pragma once

#include <string>
#include <string_view>

#include "protocol/errors_common.h"

namespace redistp::err {

// ---- connection commands ----
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

// ---- CLIENT, MONITOR, SLOWLOG, LATENCY (src/commands/client_cmd.cc, introspection.cc) ----
inline constexpr std::string_view kBadClientName =
    "ERR Client names cannot contain spaces, newlines or special characters.";
// CLIENT SETINFO (Redis 7.2): the attribute is named as the caller typed it.
inline std::string UnrecognizedOption(std::string_view attr) {
  return "ERR Unrecognized option '" + std::string(attr) + "'";
}
inline std::string BadClientAttribute(std::string_view attr) {
  return "ERR " + std::string(attr) + " cannot contain spaces, newlines or special characters.";
}
// CLIENT KILL MAXAGE (Redis 7.4).
inline constexpr std::string_view kMaxAgeNotInteger =
    "ERR maxage is not an integer or out of range";
inline constexpr std::string_view kNoSuchClient = "ERR No such client";
inline constexpr std::string_view kInvalidClientId = "ERR Invalid client ID";
inline constexpr std::string_view kClientIdRange = "ERR client-id should be greater than 0";
inline constexpr std::string_view kTimeoutNotInteger =
    "ERR timeout is not an integer or out of range";
inline constexpr std::string_view kPauseMode = "ERR CLIENT PAUSE mode must be WRITE or ALL";
inline constexpr std::string_view kUnblockReason =
    "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR";
inline constexpr std::string_view kSlowlogCount = "ERR count should be greater than or equal to -1";
// "ERR No samples available for event 'command'" (LATENCY GRAPH of an event with no sample)
inline std::string NoLatencySamples(std::string_view event) {
  return "ERR No samples available for event '" + std::string(UpToNul(event)) + "'";
}
inline constexpr std::string_view kReplicaKeyspace = "ERR Replica can't interact with the keyspace";

// ---- transactions ----
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

// ---- blocking and temporary keys ----
inline constexpr std::string_view kUnblocked = "UNBLOCKED client unblocked via CLIENT UNBLOCK";
inline constexpr std::string_view kLeaseNotInteger = "ERR lease is not an integer or out of range";
// redis-tp: SETTP/BSETTP ... FENCE when the reservation of tokens could not be made durable
// (watch/fence.h); `why` is the file error.
inline std::string FenceUnavailable(std::string_view why) {
  return "ERR fencing token unavailable: the reservation could not be made durable (" +
         std::string(why) + ")";
}

// redis-tp: sessions (SESSION OPEN/RESUME/CLOSE and the replayed records).
inline constexpr std::string_view kSessionGrace = "ERR grace is not an integer or out of range";
inline constexpr std::string_view kSessionExists = "ERR this connection already has a session";
inline constexpr std::string_view kSessionNone = "ERR this connection has no session";
inline constexpr std::string_view kSessionInvalidToken = "ERR invalid or expired session token";
inline constexpr std::string_view kSessionNoRandom =
    "ERR session token unavailable: no random bytes from the kernel";
inline constexpr std::string_view kSessionBadRecord = "ERR invalid session record";
// redis-tp: TPADOPT (a temporary key's ownership arriving with MIGRATE).
inline constexpr std::string_view kAdoptNoKey = "ERR no such key";
inline constexpr std::string_view kAdoptOwned = "ERR the key is already a temporary key";
// SESSION OPEN and RESUME on a replica: sessions are the master's (Redis's READONLY text, so
// that clients that rediscover the master on READONLY do so here too).
inline constexpr std::string_view kSessionOnReplica =
    "READONLY You can't write against a read only replica.";

// ---- server commands (SHUTDOWN, MEMORY, DEBUG, COMMAND, CONFIG) ----
inline constexpr std::string_view kNoShutdownInProgress = "ERR No shutdown in progress.";
inline constexpr std::string_view kShutdownFailed = "ERR Errors trying to SHUTDOWN. Check logs.";
inline constexpr std::string_view kPurgeFailed = "ERR Error purging dirty pages";
inline constexpr std::string_view kDebugNotAllowed =
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";
inline constexpr std::string_view kModuleNotAllowed =
    "ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";
inline constexpr std::string_view kModuleLoadFailed =
    "ERR Error loading the extension. Please check the server logs.";
inline constexpr std::string_view kModuleUnloadNoSuchModule =
    "ERR Error unloading module: no such module with that name";
inline constexpr std::string_view kNotPositive = "ERR value is out of range, must be positive";
inline constexpr std::string_view kResp2NotSupported = "ERR RESP2 is not supported by this command";
inline constexpr std::string_view kDebugProtocolType =
    "ERR Wrong protocol type name. Please use one of the following: "
    "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false";
inline constexpr std::string_view kDebugPackedThreshold =
    "ERR argument must be a memory value bigger than 1 and smaller than 4gb";
inline constexpr std::string_view kNotQuicklistEncoded = "ERR Not a quicklist encoded object.";
inline constexpr std::string_view kInvalidCommand = "ERR Invalid command specified";
inline constexpr std::string_view kOutOfRangeDatabase = "ERR Out of range database";
// Why CONFIG SET (or a config file) may not turn activedefrag on: jemalloc as Debian ships it
// lacks the hint Redis's defragmenter needs, and Debian's Redis 7.0 refuses with these words.
inline constexpr std::string_view kActiveDefragUnavailable =
    "Active defragmentation cannot be enabled: it requires a Redis server compiled with a "
    "modified Jemalloc like the one shipped by default with the Redis source distribution";
inline constexpr std::string_view kNoKeyArguments = "ERR The command has no key arguments";
inline constexpr std::string_view kInvalidArgCount =
    "ERR Invalid number of arguments specified for command";
inline constexpr std::string_view kInvalidArguments = "ERR Invalid arguments specified for command";
inline constexpr std::string_view kConfigRewritePrefix = "ERR Rewriting config file: ";
// DEBUG CONFIG-REWRITE-FORCE-ALL's failure: "ERR CONFIG-REWRITE-FORCE-ALL failed: <strerror>".
inline constexpr std::string_view kForceRewriteFailedPrefix =
    "ERR CONFIG-REWRITE-FORCE-ALL failed: ";
inline constexpr std::string_view kNoConfigFile = "ERR The server is running without a config file";
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

// ---- maxmemory ----
inline constexpr std::string_view kOom = "OOM command not allowed when used memory > 'maxmemory'.";

// ---- Pub/Sub ----
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

// ---- client-side caching ----
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

// ---- persistence ----
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
inline constexpr std::string_view kDumpPayloadWrong =
    "ERR DUMP payload version or checksum are wrong";
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

// ---- replication: the master side ----
inline constexpr std::string_view kNoReplicas = "NOREPLICAS Not enough good replicas to write.";
inline constexpr std::string_view kSyncWhileFailingOver =
    "NOMASTERLINK Can't SYNC while failing over";
inline constexpr std::string_view kSyncNoMasterLink =
    "NOMASTERLINK Can't SYNC while not connected with my master";
inline constexpr std::string_view kSyncPendingOutput =
    "ERR SYNC and PSYNC are invalid with pending output";
inline constexpr std::string_view kWaitOnReplica =
    "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a "
    "replica is configured to be writable (which is not the default) writes to replicas are just "
    "local and are not propagated.";
// WAITAOF (Redis 7.2).
inline constexpr std::string_view kWaitAofOnReplica =
    "ERR WAITAOF cannot be used with replica instances. Please also note that writes to "
    "replicas are just local and are not propagated.";
inline constexpr std::string_view kWaitAofNoAof =
    "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.";
inline constexpr std::string_view kNumLocalRange =
    "ERR value is out of range, value must between 0 and 1";
inline constexpr std::string_view kBgsaveForReplicationFailed =
    "ERR BGSAVE failed, replication can't continue";
inline constexpr std::string_view kRdbOnlyRange =
    "ERR value is out of range, value must between 0 and 1";
// REPLCONF rdb-filter-only: the value is split as Redis splits arguments (quotes allowed);
// unbalanced quotes, then a word that names no filter.
inline constexpr std::string_view kRdbFilterMissing = "ERR Missing rdb-filter-only values";
inline std::string UnsupportedRdbFilter(std::string_view filter) {
  return "ERR Unsupported rdb-filter-only option: " + std::string(TrailingArg(filter));
}
// SYNC/PSYNC from a connection that asked for a filtered snapshot without `capa eof`: a
// filtered snapshot is only ever made for the socket.
inline constexpr std::string_view kFilteredReplicaNeedsEof =
    "ERR Filtered replica requires EOF capability";
inline std::string UnrecognizedReplconf(std::string_view option) {
  // Formatted by Redis (addReplyErrorFormat): cut at a NUL, trailing CR/LF trimmed.
  return "ERR Unrecognized REPLCONF option: " + std::string(TrailingArg(option));
}
inline std::string ReplconfIpTooLong(size_t len) {
  return "ERR REPLCONF ip-address provided by replica instance is too long: " +
         std::to_string(len) + " bytes";
}

}  // namespace redistp::err
