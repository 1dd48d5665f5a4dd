// String commands (bootstrap subset; the full family lands in this file).
#include "db/database.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"

namespace redistp {
namespace {

void GetCommand(CommandContext& c) {
  Entry* e = c.db.LookupRead(c.args[1]);
  if (e == nullptr) {
    c.reply.Null();
    return;
  }
  if (!e->value.is_string()) {
    c.reply.Error(err::kWrongType);
    return;
  }
  char scratch[kMaxInt64Chars + 1];
  c.reply.Bulk(e->value.View(scratch));
}

void SetCommand(CommandContext& c) {
  c.db.Upsert(c.args[1], Value::String(c.args[2]), false);
  c.reply.Ok();
}

}  // namespace

void RegisterStringCommands(CommandTable& t) {
  t.Register({.name = "get", .arity = 2, .flags = kCmdReadOnly | kCmdFast, .first_key = 1,
              .last_key = 1, .key_step = 1, .acl = kAclRead | kAclString | kAclFast,
              .handler = GetCommand});
  t.Register({.name = "set", .arity = -3, .flags = kCmdWrite | kCmdDenyOom, .first_key = 1,
              .last_key = 1, .key_step = 1, .acl = kAclWrite | kAclString | kAclSlow,
              .handler = SetCommand});
}

}  // namespace redistp
