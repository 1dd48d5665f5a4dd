// Every command family's registration entry point. The server calls RegisterCommands once at
// startup; it calls each family's function below explicitly (no static self-registration).
#pragma once

#include "server/command.h"

namespace redistp {

void RegisterConnectionCommands(CommandTable& table);
void RegisterStringCommands(CommandTable& table);
void RegisterBitCommands(CommandTable& table);
void RegisterKeyCommands(CommandTable& table);
void RegisterExpireCommands(CommandTable& table);
void RegisterServerCommands(CommandTable& table);
void RegisterClientCommands(CommandTable& table);
void RegisterIntrospectionCommands(CommandTable& table);
void RegisterConfigCommands(CommandTable& table);
void RegisterCommandCommand(CommandTable& table);

// Calls every Register*Commands above.
void RegisterCommands(CommandTable& table);

}  // namespace redistp
