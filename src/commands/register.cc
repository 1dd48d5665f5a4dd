#include "commands/register.h"

namespace redistp {

Status RegisterCommands(CommandTable& table) {
  RegisterConnectionCommands(table);
  RegisterTransactionCommands(table);
  RegisterTempKeyCommands(table);
  RegisterWatchExCommands(table);
  RegisterStringCommands(table);
  RegisterStringIncrCommands(table);
  RegisterStringRangeCommands(table);
  RegisterBitCommands(table);
  RegisterBitfieldCommands(table);
  RegisterKeyCommands(table);
  RegisterExpireCommands(table);
  RegisterServerCommands(table);
  RegisterInfoCommand(table);
  RegisterClientCommands(table);
  RegisterIntrospectionCommands(table);
  RegisterConfigCommands(table);
  RegisterCommandCommand(table);
  RegisterKeyInspectCommands(table);
  // hashes:
  RegisterHashCommands(table);

  // lists:
  RegisterListCommands(table);

  // sets:
  RegisterSetCommands(table);

  // sorted sets:
  RegisterZSetCommands(table);

  // sorted-set operations:
  RegisterZSetOpsCommands(table);

  // SORT, SORT_RO, HSCAN, SSCAN, ZSCAN:
  RegisterSortCommands(table);
  RegisterAggregateScanCommands(table);

  // (end of the aggregate families)

  // Pub/Sub:
  RegisterPubSubCommands(table);

  // client-side caching:

  // (end of issue 9)

  // scripting (issue 10):
  // EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT:
  RegisterScriptingCommands(table);

  // FUNCTION, FCALL, FCALL_RO:
  RegisterFunctionCommands(table);

  // (end of issue 10)

  // streams, HyperLogLog, geo (issue 11):
  // streams: XADD, XLEN, XRANGE, XREVRANGE, XDEL, XTRIM, XSETID, XINFO:
  RegisterStreamCommands(table);
  RegisterStreamInfoCommands(table);

  // streams: XREAD, XREADGROUP:
  RegisterStreamReadCommands(table);

  // streams: XGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM:
  RegisterStreamGroupCommands(table);
  RegisterStreamClaimCommands(table);

  // HyperLogLog:
  RegisterHyperLogLogCommands(table);

  // geo:
  RegisterGeoCommands(table);

  // (end of issue 11)

  // persistence (issue 12):
  RegisterPersistenceCommands(table);

  // AOF:
  RegisterAofCommands(table);

  // DUMP, RESTORE, MIGRATE:
  RegisterDumpRestoreCommands(table);
  RegisterMigrateCommands(table);

  // (end of issue 12)
  return table.first_error();
}

}  // namespace redistp
