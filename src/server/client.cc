// Client: the parts of a connection's state that need more than a header (server/client.h).
#include "server/client.h"

#include "watch/exec_watches.h"

namespace redistp {

void Client::DiscardTransaction(ExecWatches& watches) {
  multi.active = false;
  multi.failed = false;
  multi.queue.clear();
  watches.UnwatchAll(id);
}

bool IsLocalClient(const Client& cl) {
  if (cl.has_flag(kClientUnixSocket)) return true;
  std::string_view ip(cl.addr);  // "ip:port", the port after the last colon
  size_t colon = ip.rfind(':');
  if (colon != std::string_view::npos) ip = ip.substr(0, colon);
  return ip == "127.0.0.1" || ip == "::1";
}

}  // namespace redistp
