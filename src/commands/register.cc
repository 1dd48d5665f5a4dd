#include "commands/register.h"

namespace redistp {

Status RegisterCommands(CommandTable& table) {
  RegisterConnectionCommands(table);
  RegisterTransactionCommands(table);
  RegisterTempKeyCommands(table);
  RegisterTempKeyInfoCommands(table);
  RegisterWatchExCommands(table);
  RegisterSessionCommands(table);
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
  RegisterAclCommands(table);
  RegisterIntrospectionCommands(table);
  RegisterModuleCommands(table);
  RegisterLolwutCommand(table);
  RegisterConfigCommands(table);
  RegisterCommandCommand(table);
  RegisterKeyInspectCommands(table);
  // the aggregate types:
  RegisterHashCommands(table);
  RegisterHashExpireCommands(table);
  RegisterListCommands(table);
  RegisterSetCommands(table);
  RegisterZSetCommands(table);
  RegisterZSetOpsCommands(table);
  RegisterSortCommands(table);
  RegisterAggregateScanCommands(table);
  // Pub/Sub (CLIENT TRACKING's rows come with RegisterClientCommands):
  RegisterPubSubCommands(table);
  // scripting:
  RegisterScriptingCommands(table);
  RegisterFunctionCommands(table);
  // streams, HyperLogLog, geo:
  RegisterStreamCommands(table);
  RegisterStreamInfoCommands(table);
  RegisterStreamReadCommands(table);
  RegisterStreamGroupCommands(table);
  RegisterStreamClaimCommands(table);
  RegisterHyperLogLogCommands(table);
  RegisterGeoCommands(table);
  // persistence:
  RegisterPersistenceCommands(table);
  RegisterAofCommands(table);
  RegisterDumpRestoreCommands(table);
  RegisterMigrateCommands(table);
  RegisterTpAdoptCommands(table);
  RegisterReplicationCommands(table);
  RegisterReplMasterCommands(table);
  RegisterReplReplicaCommands(table);
  RegisterFailoverCommands(table);
  RegisterClusterCommands(table);
  return table.first_error();
}

}  // namespace redistp
