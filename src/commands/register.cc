#include "commands/register.h"

namespace redistp {

void RegisterCommands(CommandTable& table) {
  RegisterConnectionCommands(table);
  RegisterStringCommands(table);
  RegisterBitCommands(table);
  RegisterKeyCommands(table);
  RegisterExpireCommands(table);
  RegisterServerCommands(table);
  RegisterClientCommands(table);
  RegisterIntrospectionCommands(table);
  RegisterConfigCommands(table);
  RegisterCommandCommand(table);
}

}  // namespace redistp
