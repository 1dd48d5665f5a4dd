#include "commands/help_reply.h"

#include <string>

namespace redistp {

void ReplyHelp(ReplyBuilder& r, std::string_view container,
               std::initializer_list<std::string_view> lines) {
  r.Array(lines.size() + 3);
  r.Simple(std::string(container) + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
  for (std::string_view line : lines) r.Simple(line);
  r.Simple("HELP");
  r.Simple("    Prints this help.");
}

}  // namespace redistp
