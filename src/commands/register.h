// Every command family's registration entry point. The server calls RegisterCommands once at
// startup; it calls each family's function below explicitly (no static self-registration).
#pragma once

#include "server/command.h"

namespace redistp {

void RegisterConnectionCommands(CommandTable& table);
void RegisterAclCommands(CommandTable& table);
void RegisterStringCommands(CommandTable& table);
void RegisterStringIncrCommands(CommandTable& table);
void RegisterStringRangeCommands(CommandTable& table);
void RegisterBitCommands(CommandTable& table);
void RegisterBitfieldCommands(CommandTable& table);
void RegisterKeyCommands(CommandTable& table);
void RegisterExpireCommands(CommandTable& table);
// KEYS, SCAN, OBJECT.
void RegisterKeyInspectCommands(CommandTable& table);
// MEMORY USAGE's row, for the server family's MEMORY container.
CommandSpec MemoryUsageSubcommand();
void RegisterServerCommands(CommandTable& table);
void RegisterInfoCommand(CommandTable& table);
void RegisterClientCommands(CommandTable& table);
void RegisterIntrospectionCommands(CommandTable& table);
void RegisterModuleCommands(CommandTable& table);  // module_cmd.cc
void RegisterLolwutCommand(CommandTable& table);   // lolwut.cc
void RegisterConfigCommands(CommandTable& table);
void RegisterCommandCommand(CommandTable& table);

void RegisterTempKeyCommands(CommandTable& table);
void RegisterTempKeyInfoCommands(CommandTable& table);
void RegisterWatchExCommands(CommandTable& table);
void RegisterSessionCommands(CommandTable& table);  // session_cmd.cc
void RegisterTransactionCommands(CommandTable& table);

// The aggregate types.
void RegisterHashCommands(CommandTable& table);
void RegisterHashExpireCommands(CommandTable& table);  // hash_expire.cc
void RegisterListCommands(CommandTable& table);
// SADD ... SMOVE, and the SINTER/SUNION/SDIFF family of set_ops.cc.
void RegisterSetCommands(CommandTable& table);
void RegisterZSetCommands(CommandTable& table);
// ZUNION/ZINTER/ZDIFF[STORE], ZINTERCARD, the pops (zset_pop.cc, zset_blocking.cc), ZRANDMEMBER.
void RegisterZSetOpsCommands(CommandTable& table);
// SORT, SORT_RO; HSCAN, SSCAN, ZSCAN.
void RegisterSortCommands(CommandTable& table);
void RegisterAggregateScanCommands(CommandTable& table);

// Pub/Sub.
void RegisterPubSubCommands(CommandTable& table);
// CLIENT TRACKING, CACHING, GETREDIR, TRACKINGINFO (tracking_cmd.cc): rows that
// RegisterClientCommands adds under CLIENT.
std::vector<CommandSpec> ClientTrackingSubcommands();
// CLIENT SETINFO, NO-TOUCH, CAPA, MAINT_NOTIFICATIONS (client_newer.cc): the Redis 7.2-8.x
// rows RegisterClientCommands adds under CLIENT.
std::vector<CommandSpec> ClientNewerSubcommands();

// Scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT (scripting.cc).
void RegisterScriptingCommands(CommandTable& table);
// FUNCTION, FCALL, FCALL_RO (functions.cc).
void RegisterFunctionCommands(CommandTable& table);
// The FUNCTION KILL row, for the FUNCTION container (script_kill.cc).
CommandSpec FunctionKillSubcommand();

// Streams: XADD, XLEN, XRANGE, XREVRANGE, XDEL, XTRIM, XSETID (stream.cc); XINFO (stream_info.cc).
void RegisterStreamCommands(CommandTable& table);
void RegisterStreamInfoCommands(CommandTable& table);
// XREAD, XREADGROUP and their blocking forms (stream_read.cc).
void RegisterStreamReadCommands(CommandTable& t);
// XGROUP, XACK, XPENDING (stream_group.cc); XCLAIM, XAUTOCLAIM (stream_claim.cc).
void RegisterStreamGroupCommands(CommandTable& table);
void RegisterStreamClaimCommands(CommandTable& table);
// HyperLogLog (hyperloglog.cc).
void RegisterHyperLogLogCommands(CommandTable& table);
// GEOADD, GEODIST, GEOHASH, GEOPOS (geo.cc), GEORADIUS*, GEOSEARCH, GEOSEARCHSTORE (geo_search.cc).
void RegisterGeoCommands(CommandTable& table);

// Persistence: SAVE, BGSAVE, DEBUG RELOAD's save/load (persistence_cmds.cc).
void RegisterPersistenceCommands(CommandTable& table);
// BGREWRITEAOF (aof_cmds.cc).
void RegisterAofCommands(CommandTable& table);
// DUMP, RESTORE, RESTORE-ASKING (dump_restore.cc).
void RegisterDumpRestoreCommands(CommandTable& table);
// MIGRATE (migrate.cc).
void RegisterMigrateCommands(CommandTable& table);
// TPADOPT, MIGRATE's second half for a temporary key (tpadopt.cc).
void RegisterTpAdoptCommands(CommandTable& table);

// Replication: ROLE (replication_cmd.cc); SYNC, PSYNC, REPLCONF, WAIT (repl_master_cmd.cc);
// REPLICAOF, SLAVEOF (repl_replica_cmd.cc); FAILOVER (failover_cmd.cc).
void RegisterReplicationCommands(CommandTable& table);
void RegisterReplMasterCommands(CommandTable& table);
void RegisterReplReplicaCommands(CommandTable& table);
void RegisterFailoverCommands(CommandTable& table);
void RegisterClusterCommands(CommandTable& table);

// Calls every Register*Commands above. Fails with the table's first registration error (a
// duplicate name), which the server reports before exiting.
Status RegisterCommands(CommandTable& table);

// redis-tp loads no modules (module_cmd.cc). LogModuleLoadFailure logs why `path` is not loaded,
// in the line Redis logs for a failed load. CheckNoModules returns false, having logged Redis's
// lines, when the configuration names a module (loadmodule): the server must not start.
class Logger;
void LogModuleLoadFailure(Logger& log, std::string_view path);
bool CheckNoModules(Server& server);

}  // namespace redistp
