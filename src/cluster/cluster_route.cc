// The slot check of the admission gate (Redis 7.0's getNodeByQuery): may this node serve the
// keys of a command, or of the commands a transaction queued, and if not, where to go.
//
// The rules, in Redis's order:
//   1. Every key (found by the row's key search, FindKeys kSpecs, the one COMMAND GETKEYS
//      uses; SPUBLISH/SSUBSCRIBE/SUNSUBSCRIBE's shard channels count as keys) must hash to
//      one slot: CROSSSLOT otherwise. The first key's slot must have an owner: CLUSTERDOWN
//      Hash slot not served otherwise. A command without keys is always served here.
//   2. While the cluster state is fail: CLUSTERDOWN The cluster is down, unless
//      cluster-allow-reads-when-down lets reads through (writes then get "... only accepts
//      read commands"); shard Pub/Sub follows cluster-allow-pubsubshard-when-down instead.
//   3. A slot this node is migrating: when some keys are missing here, ASK to the target
//      (TRYAGAIN if the others are here: the command would see half of them). MIGRATE itself
//      is served in an open slot.
//   4. A slot this node is importing: served to an ASKING connection (or RESTORE-ASKING),
//      except TRYAGAIN for several keys not all here.
//   5. A READONLY connection of a replica may read its master's slots (writes get MOVED).
//   6. Otherwise MOVED <slot> <ip>:<port> when another node owns the slot.
// redis-tp: where a command is served here, SETTP/BSETTP ... FENCE in a slot waiting for its
// previous owner's fencing floor gets TRYAGAIN (cluster_bus.h, "Waiting for a floor").
// A script's commands get the script's own texts (Redis's scriptVerifyClusterState).
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/cluster.h"
#include "cluster/cluster_bus.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/admission.h"
#include "server/client.h"
#include "server/command.h"
#include "server/command_docs.h"
#include "server/server.h"
#include "util/crc16.h"
#include "util/numbers.h"
#include "watch/blocking.h"

namespace redistp {

namespace {

// The shard channels of the shard Pub/Sub commands (key specs flagged not_key, which FindKeys
// never returns, but which Redis 7.0 routes as keys).
bool ShardChannels(const CommandSpec& spec, const std::vector<std::string_view>& args,
                   std::vector<std::string_view>* out) {
  if (spec.full_name == "spublish") {
    if (args.size() >= 2) out->push_back(args[1]);
    return true;
  }
  if (spec.full_name == "ssubscribe" || spec.full_name == "sunsubscribe") {
    for (size_t i = 1; i < args.size(); ++i) out->push_back(args[i]);
    return true;
  }
  return false;
}

// SETTP or BSETTP with FENCE: the command may draw a fencing token.
bool DrawsFenceToken(const CommandSpec& spec, const std::vector<std::string_view>& args) {
  if (spec.full_name != "settp" && spec.full_name != "bsettp") return false;
  for (size_t i = 3; i < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "fence")) return true;
  }
  return false;
}

}  // namespace

std::string Cluster::Route(const AdmissionCall& call) {
  // The keys of the commands judged together (EXEC's queue, or the one command), in order,
  // into a member buffer so that routing allocates nothing once warm.
  std::vector<std::string_view>& keys = route_keys_;
  keys.clear();
  uint64_t flags = 0;
  bool pubsubshard = false, is_migrate = false, draws_token = false;
  auto gather = [&](const CommandSpec& spec, const std::vector<std::string_view>& args) {
    flags |= spec.flags;
    if (spec.full_name == "migrate") is_migrate = true;
    // Only looked for while some slot waits for a fencing floor (cluster_bus.h).
    if (!draws_token && bus_->AnyFenceFloorAwaited()) draws_token = DrawsFenceToken(spec, args);
    if (ShardChannels(spec, args, &keys)) {
      pubsubshard = true;
      return;
    }
    // Most rows name one key at a fixed place: no list to build.
    KeyRef single;
    if (FindSingleFixedKey(spec, args, &single)) {
      keys.push_back(args[static_cast<size_t>(single.index)]);
      return;
    }
    for (const KeyRef& k : FindKeys(spec, args, KeySearch::kSpecs)) {
      keys.push_back(args[static_cast<size_t>(k.index)]);
    }
  };
  if (call.spec.full_name == "exec") {
    std::vector<std::string_view> args;
    for (const std::vector<std::string>& q : call.client.multi.queue) {
      const CommandSpec* spec = server_.commands().Find(q[0]);
      if (spec == nullptr) continue;
      if (!spec->subcommands.empty() && q.size() >= 2) {
        if (const CommandSpec* sub = spec->FindSubcommand(q[1])) spec = sub;
      }
      args.assign(q.begin(), q.end());
      gather(*spec, args);
    }
  } else {
    gather(call.spec, call.args);
  }

  Database& db = server_.db(0);
  ClusterNode* owner = nullptr;
  std::string_view first_key;
  int slot = -1;
  bool migrating = false, importing = false, multiple_keys = false, any_key = false;
  int missing = 0, existing = 0;
  for (std::string_view key : keys) {
    const int key_slot = KeyHashSlot(key);
    if (!any_key) {
      any_key = true;
      first_key = key;
      slot = key_slot;
      owner = state_.owner(slot);
      if (owner == nullptr) return std::string(err::kClusterDownUnbound);
      if (owner == state_.myself() && state_.migrating_to(slot) != nullptr) {
        migrating = true;
      } else if (state_.importing_from(slot) != nullptr) {
        importing = true;
      }
    } else if (key != first_key) {
      if (key_slot != slot) return std::string(err::kCrossSlot);
      multiple_keys = true;
    }
    // Whether the key is here, only asked for a slot in migration (Redis's lookupKeyRead).
    if ((migrating || importing) && db.Peek(key) == nullptr) {
      ++missing;
    } else {
      ++existing;
    }
  }
  if (!any_key) return {};
  const bool script = call.script != nullptr;
  const bool write = (flags & kCmdWrite) != 0;
  if (!state_.ok) {
    if (pubsubshard) {
      if (!server_.config().cluster_allow_pubsubshard_when_down) {
        return std::string(script ? err::kScriptClusterDown : err::kClusterDown);
      }
    } else if (!server_.config().cluster_allow_reads_when_down) {
      return std::string(script ? err::kScriptClusterDown : err::kClusterDown);
    } else if (write) {
      return std::string(script ? err::kScriptClusterDownReadOnly : err::kClusterDownReadOnly);
    }
  }
  // Served here. A script that may not cross slots is held to the slot of its first keys
  // (Redis's scriptVerifyClusterState, after the redirections).
  auto here = [&]() -> std::string {
    if (draws_token && bus_->FenceFloorAwaited(slot)) return std::string(err::kTryAgainFenceFloor);
    ScriptCallGate* g = call.script;
    if (g == nullptr || g->allow_cross_slot) return {};
    if (g->slot == -1) {
      g->slot = slot;
    } else if (g->slot != slot) {
      return std::string(err::kScriptCrossSlot);
    }
    return {};
  };
  if ((migrating || importing) && is_migrate) return here();
  if (migrating && missing > 0) {
    if (script) return std::string(err::kScriptNonLocalKey);
    if (existing > 0) return std::string(err::kTryAgain);
    const ClusterNode* to = state_.migrating_to(slot);
    return "ASK " + std::to_string(slot) + " " + to->ip + ":" + std::to_string(to->port);
  }
  const Client& asker = call.principal;
  if (importing && (asker.has_flag(kClientAsking) || (flags & kCmdAsking) != 0)) {
    if (multiple_keys && missing > 0) {
      return std::string(script ? err::kScriptNonLocalKey : err::kTryAgain);
    }
    return here();
  }
  const ClusterNode* me = state_.myself();
  if ((asker.has_flag(kClientReadOnly) || pubsubshard) && !write && me->IsReplica() &&
      me->master == owner) {
    return here();
  }
  if (owner == me) return here();
  if (script) return std::string(err::kScriptNonLocalKey);
  return "MOVED " + std::to_string(slot) + " " + owner->ip + ":" + std::to_string(owner->port);
}

std::string Cluster::AskFor(std::string_view key) const {
  const int slot = KeyHashSlot(key);
  const ClusterNode* to = state_.migrating_to(slot);
  if (to == nullptr) return {};
  return "ASK " + std::to_string(slot) + " " + to->ip + ":" + std::to_string(to->port);
}

void Cluster::RedirectBlockedClients() {
  BlockingCore& blocking = server_.blocking();
  if (blocking.blocked_count() == 0) return;
  // Collected first: ending a wait changes the core.
  std::vector<std::pair<uint64_t, std::string>> redirect;
  const ClusterNode* me = state_.myself();
  blocking.ForEachWaiter([&](const BlockedClient& w) {
    if (w.slots.empty()) return;
    if (!state_.ok) {
      redirect.emplace_back(w.client, err::kClusterDown);
      return;
    }
    // Every key of a wait hashes to one slot (the gate refused it otherwise).
    const int slot = KeyHashSlot(w.slots.front().key);
    const ClusterNode* owner = state_.owner(slot);
    if (owner == me || state_.importing_from(slot) != nullptr) return;
    // A READONLY reader of a replica waits on its master's slot: the replica serves it.
    if (owner != nullptr && me->IsReplica() && me->master == owner) {
      const Client* c = server_.FindClient(w.client);
      if (c != nullptr && c->has_flag(kClientReadOnly)) {
        const CommandSpec* spec = server_.commands().Find(c->last_cmd);
        if (spec != nullptr && (spec->flags & kCmdWrite) == 0) return;
      }
    }
    if (owner == nullptr) {
      redirect.emplace_back(w.client, err::kClusterDownUnbound);
    } else {
      redirect.emplace_back(w.client, "MOVED " + std::to_string(slot) + " " + owner->ip + ":" +
                                          std::to_string(owner->port));
    }
  });
  for (const auto& [id, error] : redirect) {
    if (Client* c = server_.FindClient(id); c != nullptr) server_.RedirectBlockedClient(c, error);
  }
}

}  // namespace redistp
