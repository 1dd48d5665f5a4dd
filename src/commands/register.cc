#include "commands/register.h"

namespace redistp {

void RegisterCommands(CommandTable& table) {
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
  // Last, so that a MEMORY container registered by another family takes precedence.
  RegisterKeyInspectCommands(table);
}

}  // namespace redistp
