// Client eviction: keeping the memory of connections under `maxmemory-clients`, as Redis 7.0.
//
// What a connection costs. ClientMemory() adds up what a connection holds on its own: the
// Client object, its query buffer (the arguments of the command being read live in it), its
// reply buffers and the pushes held back for it, the commands queued by MULTI, its WATCHed
// keys, its Pub/Sub subscriptions and its tracking prefixes. CLIENT LIST shows it as tot-mem,
// INFO as mem_clients_normal.
//
// Which connections count. The total that is compared with the limit is the sum over ordinary
// connections (Pub/Sub and MONITOR ones included), as Redis sums its normal and pubsub client
// classes; replicas, the link to our master and the server's own pseudo-clients are not in it.
// A connection with CLIENT NO-EVICT on still counts in the total but is never chosen, so the
// others make room for it.
//
// When. The total is kept incrementally: each client's last counted figure is in
// Client::counted_mem, re-read after every read from its socket (the commands it ran changed
// its buffers, or a large argument is arriving) and for every client by the cron (replies a
// client does not read and messages published to it grow its buffers without a command of its
// own). Whenever the total reaches the limit, connections are closed, largest first, until it
// is under again (Redis sorts them into power-of-two buckets; closing the largest first keeps
// the order it observes). A connection already closed by its output-buffer limit is not
// evicted again. Everything is skipped, and the hook on the read path is one compare, while
// maxmemory-clients is 0.
#include <algorithm>
#include <vector>

#include "server/client.h"
#include "server/server.h"
#include "watch/exec_watches.h"

namespace redistp {
namespace {

// A subscription costs its entry in the client's set and in the topic's subscriber list.
constexpr size_t kPerSubscription = 48;
// A tracking prefix costs its node in the server's prefix table besides its bytes.
constexpr size_t kPerPrefix = 64;
// A queued command's vector and each argument's string header.
constexpr size_t kPerQueuedCommand = sizeof(std::vector<std::string>);
constexpr size_t kPerQueuedArg = sizeof(std::string);

constexpr size_t kMinLimit = 128 * 1024;

// Whether the client's memory is part of the total at all (see the essay).
bool Counted(const Client& c) { return !c.closed && c.kind() == ClientKind::kNormal; }

}  // namespace

size_t Server::ClientMemory(const Client& c) const {
  size_t bytes = sizeof(Client) + c.query.Capacity() + c.out.allocated() +
                 c.pending_pushes.allocated() + c.name.capacity();
  if (c.multi.active) {
    bytes += c.multi.queue.capacity() * kPerQueuedCommand;
    for (const auto& cmd : c.multi.queue) {
      bytes += cmd.capacity() * kPerQueuedArg;
      for (const std::string& a : cmd) bytes += a.capacity();
    }
  }
  bytes += exec_watches_.MemoryOf(c.id);
  for (const auto& subs : c.pubsub.subscriptions) bytes += subs.size() * kPerSubscription;
  for (const std::string& p : c.tracking.prefixes) bytes += kPerPrefix + p.capacity();
  return bytes;
}

bool Server::ClientEvictable(const Client& c) const {
  return Counted(c) && !c.has_flag(kClientNoEvict);
}

size_t Server::ClientMemoryLimit() const {
  int64_t v = config_.maxmemory_clients;
  if (v == 0) return 0;
  size_t limit = v > 0 ? static_cast<size_t>(v)
                       : static_cast<size_t>(static_cast<double>(config_.maxmemory) *
                                             static_cast<double>(-v) / 100.0);
  // Redis never lets the limit fall under 128 KB, so a tiny setting cannot cut every
  // connection (the one that would fix the setting included).
  return std::max<size_t>(limit, kMinLimit);
}

bool Server::UpdateClientMemoryAndEvict(Client* c) {
  size_t limit = ClientMemoryLimit();
  if (limit == 0) return !c->closed;
  if (!client_mem_counted_) {
    // The limit was just switched on (or changed): nothing was counted while it was off.
    ClientEvictionCron();
    return !c->closed;
  }
  if (c->closed) return false;
  size_t now = Counted(*c) ? ClientMemory(*c) : 0;
  clients_evictable_mem_ = clients_evictable_mem_ - c->counted_mem + now;
  c->counted_mem = now;
  if (clients_evictable_mem_ >= limit) EvictClients(limit);
  return !c->closed;
}

void Server::ClientEvictionCron() {
  size_t limit = ClientMemoryLimit();
  if (limit == 0) {
    client_mem_counted_ = false;
    return;
  }
  size_t total = 0;
  for (const auto& [id, c] : clients_) {
    c->counted_mem = Counted(*c) ? ClientMemory(*c) : 0;
    total += c->counted_mem;
  }
  clients_evictable_mem_ = total;
  client_mem_counted_ = true;
  if (total >= limit) EvictClients(limit);
}

void Server::EvictClients(size_t limit) {
  std::vector<Client*> candidates;
  for (const auto& [id, c] : clients_) {
    if (ClientEvictable(*c) && c->counted_mem > 0) candidates.push_back(c);
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const Client* a, const Client* b) { return a->counted_mem > b->counted_mem; });
  for (Client* c : candidates) {
    if (clients_evictable_mem_ < limit) break;
    log_.Log(LogLevel::kVerbose, "Evicting client: %s", ClientInfoLine(*c).c_str());
    ++stats_.evicted_clients;
    CloseClient(c, "client eviction");  // takes its counted_mem off the total
  }
}

}  // namespace redistp
