// The maintenance notice (maint_notify.h has the model).
#include "server/maint_notify.h"

#include "server/client.h"
#include "server/server.h"

namespace redistp {

size_t PushMaintenanceMoving(Server& server, int64_t seconds, std::string_view endpoint) {
  const int64_t seq = server.NowMs();
  size_t sent = 0;
  for (const auto& [id, c] : server.clients()) {
    if (!c->has_flag(kClientMaintNotify) || c->reply.resp() < 3) continue;
    server.Push(*c, [&](ReplyBuilder& rb) {
      rb.Push(4);
      rb.Bulk("MOVING");
      rb.Int(seq);
      rb.Int(seconds);
      if (endpoint.empty()) {
        rb.Null();
      } else {
        rb.Bulk(endpoint);
      }
    });
    ++sent;
  }
  return sent;
}

}  // namespace redistp
