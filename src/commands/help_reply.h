// The reply to <CONTAINER> HELP, shared by every container command (CLIENT, CONFIG, OBJECT ...).
#pragma once

#include <initializer_list>
#include <string_view>

#include "protocol/reply_builder.h"

namespace redistp {

// Replies with the help array Redis sends for a container: the header
// "<CONTAINER> <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", then `lines` (each
// subcommand's usage followed by its indented description), then the HELP entry itself. Every
// line is a simple string.
void ReplyHelp(ReplyBuilder& r, std::string_view container,
               std::initializer_list<std::string_view> lines);

}  // namespace redistp
