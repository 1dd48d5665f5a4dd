// Every command family's registration entry point. The server calls RegisterCommands once at
// startup; it calls each family's function below explicitly (no static self-registration).
#pragma once

#include "server/command.h"

namespace redistp {

void RegisterConnectionCommands(CommandTable& table);
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
void RegisterConfigCommands(CommandTable& table);
void RegisterCommandCommand(CommandTable& table);

void RegisterTempKeyCommands(CommandTable& table);
void RegisterWatchExCommands(CommandTable& table);
void RegisterTransactionCommands(CommandTable& table);

// The aggregate families (issue 8): one line each below its family's comment.
// hashes:
void RegisterHashCommands(CommandTable& table);

// lists:
void RegisterListCommands(CommandTable& table);

// sets:
// (SADD ... SMOVE, and the SINTER/SUNION/SDIFF family of set_ops.cc)
void RegisterSetCommands(CommandTable& table);

// sorted sets:
void RegisterZSetCommands(CommandTable& table);

// sorted-set operations:
void RegisterZSetOpsCommands(CommandTable& table);

// SORT, SORT_RO, HSCAN, SSCAN, ZSCAN:
void RegisterSortCommands(CommandTable& table);
void RegisterAggregateScanCommands(CommandTable& table);

// (end of the aggregate families)

// Pub/Sub, notifications and client-side caching (issue 9):
// Pub/Sub:
void RegisterPubSubCommands(CommandTable& table);

// client-side caching (CLIENT TRACKING is a CLIENT subcommand; its rows, if separate):
// CLIENT TRACKING, CACHING, GETREDIR, TRACKINGINFO (tracking_cmd.cc), for RegisterClientCommands.
std::vector<CommandSpec> ClientTrackingSubcommands();

// (end of issue 9)

// scripting (issue 10):
// EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT (scripting.cc):
void RegisterScriptingCommands(CommandTable& table);

// FUNCTION, FCALL, FCALL_RO:
void RegisterFunctionCommands(CommandTable& table);

// busy scripts: the FUNCTION KILL row, for the FUNCTION container (script_kill.cc):
CommandSpec FunctionKillSubcommand();

// (end of issue 10)

// streams, HyperLogLog, geo (issue 11):
// streams: XADD, XLEN, XRANGE, XREVRANGE, XDEL, XTRIM, XSETID, XINFO:
void RegisterStreamCommands(CommandTable& table);      // stream.cc
void RegisterStreamInfoCommands(CommandTable& table);  // stream_info.cc

// streams: XREAD, XREADGROUP (and their blocking):
void RegisterStreamReadCommands(CommandTable& t);

// streams: XGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM:
// XGROUP, XACK, XPENDING (stream_group.cc):
void RegisterStreamGroupCommands(CommandTable& table);
// XCLAIM, XAUTOCLAIM (stream_claim.cc):
void RegisterStreamClaimCommands(CommandTable& table);

// HyperLogLog:
void RegisterHyperLogLogCommands(CommandTable& table);  // hyperloglog.cc

// geo:
// GEOADD, GEODIST, GEOHASH, GEOPOS (geo.cc), GEORADIUS*, GEOSEARCH, GEOSEARCHSTORE (geo_search.cc):
void RegisterGeoCommands(CommandTable& table);

// (end of issue 11)

// persistence (issue 12):
// SAVE, BGSAVE, DEBUG RELOAD's save/load (persistence_cmds.cc):
void RegisterPersistenceCommands(CommandTable& table);

// AOF: BGREWRITEAOF:
void RegisterAofCommands(CommandTable& table);

// DUMP, RESTORE, MIGRATE:
// DUMP, RESTORE, RESTORE-ASKING (dump_restore.cc):
void RegisterDumpRestoreCommands(CommandTable& table);
// MIGRATE (migrate.cc):
void RegisterMigrateCommands(CommandTable& table);

// (end of issue 12)

// Calls every Register*Commands above. Fails with the table's first registration error (a
// duplicate name), which the server reports before exiting.
Status RegisterCommands(CommandTable& table);

}  // namespace redistp
