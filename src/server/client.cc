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

}  // namespace redistp
