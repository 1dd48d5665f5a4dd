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
// KEYS, SCAN, OBJECT; also MEMORY (with USAGE only) unless the table already has MEMORY.
void RegisterKeyInspectCommands(CommandTable& table);
// MEMORY USAGE's row, for whichever family registers the MEMORY container.
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

// Calls every Register*Commands above.
void RegisterCommands(CommandTable& table);

}  // namespace redistp
