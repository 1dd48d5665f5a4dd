// CLUSTER and its subcommands, READONLY, READWRITE and ASKING (cluster/cluster.h holds the
// node's state; this file parses, checks and replies).
//
// Every subcommand that reads the view or changes this node's own slots and epochs, with Redis
// 7.0.15's replies and errors; MEET, FORGET, LINKS and COUNT-FAILURE-REPORTS through the bus
// (cluster/cluster_bus.h); REPLICATE and FAILOVER [FORCE|TAKEOVER] through the cluster's role
// (cluster/cluster_role.cc) and the bus's failover (cluster/cluster_bus_failover.cc). With
// cluster-enabled no,
// every subcommand answers "ERR This instance has cluster support disabled", as in Redis.
// Errors come in Redis's order: the arguments left to right, then the node's state.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/bus_link.h"
#include "cluster/cluster.h"
#include "cluster/cluster_bus.h"
#include "cluster/nodes_conf.h"
#include "commands/help_reply.h"
#include "commands/register.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "replication/replication.h"
#include "server/command.h"
#include "server/log.h"
#include "server/server.h"
#include "util/crc16.h"
#include "util/numbers.h"

namespace redistp {

namespace {

// The node's cluster, or null after replying that cluster support is disabled.
Cluster* Need(CommandContext& c) {
  Cluster* cluster = Cluster::Of(c.server);
  if (cluster == nullptr) c.reply.Error(err::kClusterDisabled);
  return cluster;
}

// A slot argument (Redis's getSlotOrReply): an integer 0..16383, or -1 after the error.
int SlotArg(CommandContext& c, std::string_view arg) {
  int64_t v;
  if (!ParseInt64(arg, &v) || v < 0 || v >= kClusterSlots) {
    c.reply.Error(err::kClusterInvalidSlot);
    return -1;
  }
  return static_cast<int>(v);
}

// The text Redis gives a known subcommand called with more arguments than it reads.
std::string SubcommandArityError(std::string_view sub) {
  return "ERR unknown subcommand or wrong number of arguments for '" + std::string(sub) +
         "'. Try CLUSTER HELP.";
}

void ClusterHelp(CommandContext& c) {
  if (Need(c) == nullptr) return;
  ReplyHelp(c.reply, "CLUSTER",
            {"ADDSLOTS <slot> [<slot> ...]",
             "    Assign slots to current node.",
             "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
             "    Assign slots which are between <start-slot> and <end-slot> to current node.",
             "BUMPEPOCH",
             "    Advance the cluster config epoch.",
             "COUNT-FAILURE-REPORTS <node-id>",
             "    Return number of failure reports for <node-id>.",
             "COUNTKEYSINSLOT <slot>",
             "    Return the number of keys in <slot>.",
             "DELSLOTS <slot> [<slot> ...]",
             "    Delete slots information from current node.",
             "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
             "    Delete slots information which are between <start-slot> and <end-slot> from "
             "current node.",
             "FAILOVER [FORCE|TAKEOVER]",
             "    Promote current replica node to being a master.",
             "FORGET <node-id>",
             "    Remove a node from the cluster.",
             "GETKEYSINSLOT <slot> <count>",
             "    Return key names stored by current node in a slot.",
             "FLUSHSLOTS",
             "    Delete current node own slots information.",
             "INFO",
             "    Return information about the cluster.",
             "KEYSLOT <key>",
             "    Return the hash slot for <key>.",
             "MEET <ip> <port> [<bus-port>]",
             "    Connect nodes into a working cluster.",
             "MYID",
             "    Return the node id.",
             "NODES",
             "    Return cluster configuration seen by node. Output format:",
             "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
             "REPLICATE <node-id>",
             "    Configure current node as replica to <node-id>.",
             "RESET [HARD|SOFT]",
             "    Reset current node (default: soft).",
             "SET-CONFIG-EPOCH <epoch>",
             "    Set config epoch of current node.",
             "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
             "    Set slot state.",
             "REPLICAS <node-id>",
             "    Return <node-id> replicas.",
             "SAVECONFIG",
             "    Force saving cluster configuration on disk.",
             "SLOTS",
             "    Return information about slots range mappings. Each range is made of:",
             "    start, end, master and replicas IP addresses, ports and ids",
             "SHARDS",
             "    Return information about slot range mappings and the nodes associated with "
             "them.",
             "LINKS",
             "    Return information about all network links between this node and its peers.",
             "    Output format is an array where each array element is a map containing "
             "attributes of a link"});
}

void ClusterMyId(CommandContext& c) {
  if (Cluster* cl = Need(c)) c.reply.Bulk(cl->myself().id);
}

void ClusterInfo(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  const ClusterState& st = cl->state();
  std::string out;
  auto line = [&out](std::string_view name, uint64_t v) {
    out.append(name);
    out.push_back(':');
    out.append(std::to_string(v));
    out.append("\r\n");
  };
  out.append(st.ok ? "cluster_state:ok\r\n" : "cluster_state:fail\r\n");
  const int assigned = st.SlotsAssigned();
  const int pfail = st.SlotsWithFlag(kNodePfail);
  const int fail = st.SlotsWithFlag(kNodeFail);
  line("cluster_slots_assigned", static_cast<uint64_t>(assigned));
  line("cluster_slots_ok", static_cast<uint64_t>(assigned - pfail - fail));
  line("cluster_slots_pfail", static_cast<uint64_t>(pfail));
  line("cluster_slots_fail", static_cast<uint64_t>(fail));
  line("cluster_known_nodes", st.nodes().size());
  line("cluster_size", static_cast<uint64_t>(cl->size()));
  line("cluster_current_epoch", st.current_epoch);
  line("cluster_my_epoch", st.myself()->ShownEpoch());
  // Per-type message counters appear only for the types sent or received at least once.
  const BusNet& net = cl->bus().net();
  for (uint16_t t = 0; t < kBusTypeCount; ++t) {
    if (net.sent(t) == 0) continue;
    line("cluster_stats_messages_" + std::string(BusTypeName(t)) + "_sent", net.sent(t));
  }
  line("cluster_stats_messages_sent", net.sent_total());
  for (uint16_t t = 0; t < kBusTypeCount; ++t) {
    if (net.received(t) == 0) continue;
    line("cluster_stats_messages_" + std::string(BusTypeName(t)) + "_received", net.received(t));
  }
  line("cluster_stats_messages_received", net.received_total());
  line("total_cluster_links_buffer_limit_exceeded", net.buffer_limit_exceeded());
  c.reply.Verbatim(out);
}

void ClusterNodes(CommandContext& c) {
  if (Cluster* cl = Need(c)) c.reply.Verbatim(FormatClusterNodes(cl->state()));
}

// The endpoint clients are told to use (cluster-preferred-endpoint-type).
std::string Endpoint(CommandContext& c, const ClusterNode& n) {
  std::string type;
  c.server.config().GetValue("cluster-preferred-endpoint-type", &type);
  if (type == "hostname") return n.hostname.empty() ? "?" : n.hostname;
  if (type == "unknown-endpoint") return "?";
  return n.ip;
}

// One node of a CLUSTER SLOTS range: endpoint, port, id, and the other names it has.
void ReplySlotsNode(CommandContext& c, const ClusterNode& n) {
  c.reply.Array(4);
  c.reply.Bulk(Endpoint(c, n));
  c.reply.Int(n.port);
  c.reply.Bulk(n.id);
  std::string type;
  c.server.config().GetValue("cluster-preferred-endpoint-type", &type);
  if (type != "hostname" && !n.hostname.empty()) {
    c.reply.Map(1);
    c.reply.Bulk("hostname");
    c.reply.Bulk(n.hostname);
  } else {
    c.reply.Map(0);
  }
}

// The runs of consecutive slots `n` serves, as [start, end] pairs.
std::vector<std::pair<int, int>> SlotRuns(const ClusterNode& n) {
  std::vector<std::pair<int, int>> runs;
  for (int s = 0; s < kClusterSlots; ++s) {
    if (!n.slots.test(static_cast<size_t>(s))) continue;
    int e = s;
    while (e + 1 < kClusterSlots && n.slots.test(static_cast<size_t>(e + 1))) ++e;
    runs.emplace_back(s, e);
    s = e;
  }
  return runs;
}

// A node's replication offset: myself's own (a replica's is its master's stream applied), any
// other node's as its last bus header said.
int64_t NodeReplOffset(CommandContext& c, const ClusterNode& n) {
  if (!n.IsMyself()) return static_cast<int64_t>(n.repl_offset);
  const Replication* r = c.server.subsystem<Replication>();
  return r != nullptr ? r->master_repl_offset() : 0;
}

void ClusterSlots(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  const ClusterState& st = cl->state();
  // Runs of consecutive slots with one owner, in slot order, as Redis walks them.
  struct Range {
    int start, end;
    const ClusterNode* master;
  };
  std::vector<Range> ranges;
  for (int s = 0; s < kClusterSlots; ++s) {
    const ClusterNode* n = st.owner(s);
    if (n == nullptr) continue;
    if (!ranges.empty() && ranges.back().master == n && ranges.back().end == s - 1) {
      ranges.back().end = s;
    } else {
      ranges.push_back(Range{s, s, n});
    }
  }
  c.reply.Array(ranges.size());
  for (const Range& r : ranges) {
    // Redis 7.0.15 lists a replica once it is usable: not failed, and with a replication offset
    // (0 until its first sync, as its headers or, for myself, its own link say).
    std::vector<const ClusterNode*> replicas;
    for (const ClusterNode* rep : r.master->replicas) {
      if (!rep->Has(kNodeFail) && NodeReplOffset(c, *rep) != 0) replicas.push_back(rep);
    }
    c.reply.Array(3 + replicas.size());
    c.reply.Int(r.start);
    c.reply.Int(r.end);
    ReplySlotsNode(c, *r.master);
    for (const ClusterNode* rep : replicas) ReplySlotsNode(c, *rep);
  }
}

// One node of a CLUSTER SHARDS shard.
void ReplyShardNode(CommandContext& c, const ClusterNode& n) {
  const bool hostname = !n.hostname.empty();
  c.reply.Map(hostname ? 8 : 7);
  c.reply.Bulk("id");
  c.reply.Bulk(n.id);
  c.reply.Bulk("port");
  c.reply.Int(n.port);
  c.reply.Bulk("ip");
  c.reply.Bulk(n.ip);
  c.reply.Bulk("endpoint");
  c.reply.Bulk(Endpoint(c, n));
  if (hostname) {
    c.reply.Bulk("hostname");
    c.reply.Bulk(n.hostname);
  }
  c.reply.Bulk("role");
  c.reply.Bulk(n.IsReplica() ? "replica" : "master");
  c.reply.Bulk("replication-offset");
  const int64_t offset = NodeReplOffset(c, n);
  c.reply.Int(offset);
  // Measured on 7.0.15: "fail" for a FAIL node only (PFAIL is online), "loading" for a replica
  // that has no offset yet.
  c.reply.Bulk("health");
  c.reply.Bulk(n.Has(kNodeFail) ? "fail" : n.IsReplica() && offset == 0 ? "loading" : "online");
}

void ClusterShards(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  std::vector<const ClusterNode*> masters;
  for (const ClusterNode* n : cl->state().nodes()) {
    if (n->IsMaster()) masters.push_back(n);
  }
  c.reply.Array(masters.size());
  for (const ClusterNode* m : masters) {
    c.reply.Map(2);
    c.reply.Bulk("slots");
    std::vector<std::pair<int, int>> runs = SlotRuns(*m);
    c.reply.Array(runs.size() * 2);
    for (auto [s, e] : runs) {
      c.reply.Int(s);
      c.reply.Int(e);
    }
    c.reply.Bulk("nodes");
    c.reply.Array(1 + m->replicas.size());
    ReplyShardNode(c, *m);
    for (const ClusterNode* rep : m->replicas) ReplyShardNode(c, *rep);
  }
}

// One CLUSTER LINKS entry: a map in RESP3, a flat array of pairs in RESP2.
void ReplyLink(CommandContext& c, const BusLink& link) {
  c.reply.Map(6);
  c.reply.Bulk("direction");
  c.reply.Bulk(link.dir() == BusLink::Dir::kTo ? "to" : "from");
  c.reply.Bulk("node");
  c.reply.Bulk(link.node->id);
  c.reply.Bulk("create-time");
  c.reply.Int(link.create_ms());
  c.reply.Bulk("events");
  c.reply.Bulk(link.events());
  c.reply.Bulk("send-buffer-allocated");
  c.reply.Int(static_cast<int64_t>(link.send_buffer_allocated()));
  c.reply.Bulk("send-buffer-used");
  c.reply.Int(static_cast<int64_t>(link.send_buffer_used()));
}

// The links tied to a node: each node's outbound link, then its inbound one (Redis's order).
void ClusterLinks(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  std::vector<const BusLink*> links;
  for (const ClusterNode* n : cl->state().nodes()) {
    if (n->link != nullptr) links.push_back(n->link);
    if (n->inbound_link != nullptr) links.push_back(n->inbound_link);
  }
  c.reply.Array(links.size());
  for (const BusLink* l : links) ReplyLink(c, *l);
}

void ClusterKeySlot(CommandContext& c) {
  if (Need(c) != nullptr) c.reply.Int(KeyHashSlot(c.args[2]));
}

void ClusterCountKeysInSlot(CommandContext& c) {
  if (Need(c) == nullptr) return;
  int64_t slot;
  if (!ParseInt64(c.args[2], &slot)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  if (slot < 0 || slot >= kClusterSlots) {
    c.reply.Error(err::kClusterInvalidSlotShort);
    return;
  }
  c.reply.Int(static_cast<int64_t>(c.server.db(0).slot_index()->Count(static_cast<int>(slot))));
}

void ClusterGetKeysInSlot(CommandContext& c) {
  if (Need(c) == nullptr) return;
  int64_t slot, count;
  if (!ParseInt64(c.args[2], &slot) || !ParseInt64(c.args[3], &count)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  if (slot < 0 || slot >= kClusterSlots || count < 0) {
    c.reply.Error(err::kClusterInvalidSlotOrCount);
    return;
  }
  std::vector<Entry*> entries;
  c.server.db(0).slot_index()->Keys(static_cast<int>(slot), static_cast<size_t>(count), &entries);
  c.reply.Array(entries.size());
  for (const Entry* e : entries) c.reply.Bulk(e->key());
}

// ADDSLOTS / DELSLOTS and their RANGE forms: the slots named, checked all before any changes.
void ChangeSlots(CommandContext& c, bool add, bool ranges) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  ClusterState& st = cl->state();
  std::vector<uint8_t> named(kClusterSlots, 0);
  auto check = [&](int slot) {
    if (!add && st.owner(slot) == nullptr) {
      c.reply.Error(err::ClusterSlotUnassigned(slot));
      return false;
    }
    if (add && st.owner(slot) != nullptr) {
      c.reply.Error(err::ClusterSlotBusy(slot));
      return false;
    }
    if (named[static_cast<size_t>(slot)]++ == 1) {
      c.reply.Error(err::ClusterSlotRepeated(slot));
      return false;
    }
    return true;
  };
  if (ranges) {
    // Pairs: an odd count of bounds is an arity error, as Redis words it.
    if (c.args.size() % 2 == 1) {
      c.reply.Error(err::WrongArity(c.spec.full_name));
      return;
    }
    for (size_t i = 2; i + 1 < c.args.size(); i += 2) {
      const int start = SlotArg(c, c.args[i]);
      if (start < 0) return;
      const int end = SlotArg(c, c.args[i + 1]);
      if (end < 0) return;
      if (start > end) {
        c.reply.Error(err::ClusterSlotRange(start, end));
        return;
      }
      for (int s = start; s <= end; ++s) {
        if (!check(s)) return;
      }
    }
  } else {
    for (size_t i = 2; i < c.args.size(); ++i) {
      const int slot = SlotArg(c, c.args[i]);
      if (slot < 0 || !check(slot)) return;
    }
  }
  for (int s = 0; s < kClusterSlots; ++s) {
    if (named[static_cast<size_t>(s)] == 0) continue;
    if (add) {
      // A slot this node was importing is its own now.
      st.SetImporting(s, nullptr);
      st.AssignSlot(s, cl->state().myself());
    } else {
      st.UnassignSlot(s);
    }
  }
  // Fence floors (cluster_bus.h): whoever served these slots before is not known here, nor who
  // will serve the ones given up, so everyone is asked, or told.
  if (add) {
    cl->bus().BroadcastFenceFloorRequest();
  } else {
    cl->bus().BroadcastFenceFloor();
  }
  cl->Changed();
  c.reply.Ok();
}

void ClusterAddSlots(CommandContext& c) { ChangeSlots(c, true, false); }
void ClusterAddSlotsRange(CommandContext& c) { ChangeSlots(c, true, true); }
void ClusterDelSlots(CommandContext& c) { ChangeSlots(c, false, false); }
void ClusterDelSlotsRange(CommandContext& c) { ChangeSlots(c, false, true); }

void ClusterFlushSlots(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  if (c.server.db(0).size() != 0) {
    c.reply.Error(err::kClusterFlushSlotsNotEmpty);
    return;
  }
  ClusterState& st = cl->state();
  bool gave_up = false;
  for (int s = 0; s < kClusterSlots; ++s) {
    if (st.owner(s) != st.myself()) continue;
    st.UnassignSlot(s);
    gave_up = true;
  }
  if (gave_up) cl->bus().BroadcastFenceFloor();  // as DELSLOTS (ChangeSlots)
  cl->Changed();
  c.reply.Ok();
}

void ClusterSaveConfig(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  Status s = cl->SaveNow();
  if (!s.ok()) {
    c.reply.Error(s.message());
    return;
  }
  c.reply.Ok();
}

// Redis's clusterBumpConfigEpochWithoutConsensus: a new epoch for this node unless it already
// has the largest, non-zero one. True when it changed.
bool BumpEpoch(Cluster& cl) {
  ClusterState& st = cl.state();
  ClusterNode& me = cl.myself();
  const uint64_t max_epoch = st.MaxConfigEpoch();
  if (me.config_epoch != 0 && me.config_epoch == max_epoch) return false;
  ++st.current_epoch;
  me.config_epoch = st.current_epoch;
  cl.Changed();
  return true;
}

void ClusterBumpEpoch(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  const bool bumped = BumpEpoch(*cl);
  c.reply.Simple((bumped ? "BUMPED " : "STILL ") + std::to_string(cl->myself().config_epoch));
}

void ClusterSetConfigEpoch(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  int64_t epoch;
  if (!ParseInt64(c.args[2], &epoch)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  ClusterState& st = cl->state();
  if (epoch < 0) {
    c.reply.Error(err::ClusterConfigEpochInvalid(epoch));
  } else if (st.nodes().size() > 1) {
    c.reply.Error(err::kClusterConfigEpochOthers);
  } else if (cl->myself().config_epoch != 0) {
    c.reply.Error(err::kClusterConfigEpochNonZero);
  } else {
    cl->myself().config_epoch = static_cast<uint64_t>(epoch);
    c.server.log().Log(LogLevel::kWarning, "configEpoch set to %llu via CLUSTER SET-CONFIG-EPOCH",
                       static_cast<unsigned long long>(epoch));
    if (st.current_epoch < static_cast<uint64_t>(epoch)) {
      st.current_epoch = static_cast<uint64_t>(epoch);
    }
    cl->Changed();
    c.reply.Ok();
  }
}

void ClusterReset(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  bool hard = false;
  if (c.args.size() == 3) {
    if (EqualsIgnoreCase(c.args[2], "hard")) {
      hard = true;
    } else if (!EqualsIgnoreCase(c.args[2], "soft")) {
      c.reply.Error(err::kSyntax);
      return;
    }
  } else if (c.args.size() > 3) {
    c.reply.Error(SubcommandArityError("reset"));
    return;
  }
  if (cl->myself().IsMaster() && c.server.db(0).size() != 0) {
    c.reply.Error(err::kClusterResetWithKeys);
    return;
  }
  cl->Reset(hard);
  c.reply.Ok();
}

void ClusterCountFailureReports(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  if (cl->state().Lookup(c.args[2]) == nullptr) {
    c.reply.Error(err::ClusterUnknownNode(c.args[2]));
    return;
  }
  c.reply.Int(cl->bus().FailureReports(cl->state().Lookup(c.args[2])));
}

void ClusterReplicas(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  const ClusterNode* n = cl->state().Lookup(c.args[2]);
  if (n == nullptr) {
    c.reply.Error(err::ClusterUnknownNode(c.args[2]));
    return;
  }
  if (n->IsReplica()) {
    c.reply.Error(err::kClusterNotMaster);
    return;
  }
  c.reply.Array(n->replicas.size());
  for (const ClusterNode* rep : n->replicas) {
    std::string line;
    AppendNodeLine(cl->state(), *rep, &line);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    c.reply.Bulk(line);
  }
}

void ClusterForget(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  ClusterState& st = cl->state();
  ClusterNode* n = st.Lookup(c.args[2]);
  if (n == nullptr) {
    c.reply.Error(err::ClusterUnknownNode(c.args[2]));
    return;
  }
  if (n->IsMyself()) {
    c.reply.Error(err::kClusterForgetMyself);
    return;
  }
  if (cl->myself().IsReplica() && cl->myself().master == n) {
    c.reply.Error(err::kClusterForgetMyMaster);
    return;
  }
  // Banned for 60 s, so that gossip from the nodes not yet told does not bring it back.
  cl->bus().Forget(n);
  c.reply.Ok();
}

void ClusterReplicate(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  const ClusterNode* n = cl->state().Lookup(c.args[2]);
  if (n == nullptr) {
    c.reply.Error(err::ClusterUnknownNode(c.args[2]));
  } else if (n->IsMyself()) {
    c.reply.Error(err::kClusterReplicateMyself);
  } else if (n->IsReplica()) {
    c.reply.Error(err::kClusterReplicateReplica);
  } else if (cl->myself().IsMaster() &&
             (cl->myself().num_slots != 0 || c.server.db(0).size() != 0)) {
    c.reply.Error(err::kClusterReplicateNotEmpty);
  } else {
    cl->bus().ResetManualFailover();
    cl->SetMyMaster(cl->state().Lookup(c.args[2]));
    c.reply.Ok();
  }
}

void ClusterMeet(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  if (c.args.size() > 5) {
    c.reply.Error(SubcommandArityError("meet"));
    return;
  }
  int64_t port, bus_port = 0;
  if (!ParseInt64(c.args[3], &port)) {
    c.reply.Error("ERR Invalid TCP base port specified: " + std::string(c.args[3]));
    return;
  }
  if (c.args.size() > 4 && !ParseInt64(c.args[4], &bus_port)) {
    c.reply.Error("ERR Invalid TCP bus port specified: " + std::string(c.args[4]));
    return;
  }
  if (c.args.size() <= 4) bus_port = port + 10000;
  if (!cl->bus().Meet(c.args[2], port, bus_port)) {
    c.reply.Error("ERR Invalid node address specified: " + std::string(c.args[2]) + ":" +
                  std::string(c.args[3]));
    return;
  }
  c.reply.Ok();
}

void ClusterFailover(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  if (c.args.size() == 3) {
    if (!EqualsIgnoreCase(c.args[2], "force") && !EqualsIgnoreCase(c.args[2], "takeover")) {
      c.reply.Error(err::kSyntax);
      return;
    }
  } else if (c.args.size() > 3) {
    c.reply.Error(SubcommandArityError("failover"));
    return;
  }
  const bool takeover = c.args.size() == 3 && EqualsIgnoreCase(c.args[2], "takeover");
  const bool force = c.args.size() == 3;  // FORCE, or TAKEOVER which is forced too
  const ClusterNode& me = cl->myself();
  if (me.IsMaster()) {
    c.reply.Error(err::kClusterFailoverOnMaster);
    return;
  }
  if (me.master == nullptr) {
    c.reply.Error(err::kClusterFailoverMasterUnknown);
    return;
  }
  if (!force && (me.master->Has(kNodeFail) || me.master->link == nullptr)) {
    c.reply.Error(err::kClusterFailoverMasterDown);
    return;
  }
  cl->bus().StartManualFailover(takeover ? ClusterBus::ManualFailover::kTakeover
                                : force  ? ClusterBus::ManualFailover::kForce
                                         : ClusterBus::ManualFailover::kDefault);
  c.reply.Ok();
}

// The node named by SETSLOT MIGRATING/IMPORTING's last argument: a known master, or null
// after replying Redis's error for an unknown node or a replica.
ClusterNode* MigrationPeerOrReply(CommandContext& c, ClusterState& st) {
  ClusterNode* peer = st.Lookup(c.args[4]);
  if (peer == nullptr) {
    c.reply.Error(err::ClusterDontKnowNode(c.args[4]));
  } else if (peer->IsReplica()) {
    c.reply.Error(err::kClusterTargetNotMaster);
    peer = nullptr;
  }
  return peer;
}

void ClusterSetSlot(CommandContext& c) {
  Cluster* cl = Need(c);
  if (cl == nullptr) return;
  ClusterState& st = cl->state();
  ClusterNode* me = st.myself();
  if (me->IsReplica()) {
    c.reply.Error("ERR Please use SETSLOT only with masters.");
    return;
  }
  const int slot = SlotArg(c, c.args[2]);
  if (slot < 0) return;
  std::string_view action = c.args[3];
  const size_t n = c.args.size();
  const size_t keys = c.server.db(0).slot_index()->Count(slot);
  if (EqualsIgnoreCase(action, "migrating") && n == 5) {
    if (st.owner(slot) != me) {
      c.reply.Error(err::ClusterNotOwner(slot));
      return;
    }
    ClusterNode* to = MigrationPeerOrReply(c, st);
    if (to == nullptr) return;
    st.SetMigrating(slot, to);
    // The target's tokens for this slot's keys must be above mine (cluster_bus.h).
    cl->bus().SendFenceFloor(to);
  } else if (EqualsIgnoreCase(action, "importing") && n == 5) {
    if (st.owner(slot) == me) {
      c.reply.Error(err::ClusterAlreadyOwner(slot));
      return;
    }
    ClusterNode* from = MigrationPeerOrReply(c, st);
    if (from == nullptr) return;
    st.SetImporting(slot, from);
    // The source sends its floor when it sets MIGRATING (redis-cli's order); asked here too
    // for the other order and a source that missed it.
    cl->bus().RequestFenceFloor(from);
    cl->bus().AwaitFenceFloor(slot, from);
  } else if (EqualsIgnoreCase(action, "stable") && n == 4) {
    st.SetMigrating(slot, nullptr);
    st.SetImporting(slot, nullptr);
    cl->bus().EndFenceFloorWait(slot);
  } else if (EqualsIgnoreCase(action, "node") && n == 5) {
    ClusterNode* to = st.Lookup(c.args[4]);
    if (to == nullptr) {
      c.reply.Error(err::ClusterUnknownNode(c.args[4]));
      return;
    }
    if (to->IsReplica()) {
      c.reply.Error(err::kClusterTargetNotMaster);
      return;
    }
    if (st.owner(slot) == me && to != me && keys != 0) {
      c.reply.Error(err::ClusterSlotHasKeys(slot));
      return;
    }
    // Fence floors (cluster_bus.h): a slot leaving me tells the new owner my floor; a slot
    // coming to me asks its old owner for one.
    ClusterNode* before = st.owner(slot);
    if (to != me) {
      if (before == me || st.migrating_to(slot) != nullptr) cl->bus().SendFenceFloor(to);
      cl->bus().EndFenceFloorWait(slot);
    } else if (before != me) {
      // An import whose floor arrived needs no other (every later token of the source is
      // covered by that floor, its mark, or a TPADOPT); otherwise the old owner is asked and
      // waited for.
      ClusterNode* from = st.importing_from(slot);
      const bool covered = from != nullptr && from == before && !cl->bus().FenceFloorAwaited(slot);
      ClusterNode* ask = before != nullptr ? before : from;
      if (!covered) {
        cl->bus().RequestFenceFloor(ask);
        cl->bus().AwaitFenceFloor(slot, ask);
      }
    }
    // The last key left: the migration is over.
    if (keys == 0 && st.migrating_to(slot) != nullptr) st.SetMigrating(slot, nullptr);
    st.UnassignSlot(slot);
    st.AssignSlot(slot, to);
    // Taking an imported slot ends the import, with a new epoch so that the others (when a
    // bus exists) accept the change.
    if (to == me && st.importing_from(slot) != nullptr) {
      if (BumpEpoch(*cl)) {
        c.server.log().Log(LogLevel::kWarning, "configEpoch updated after importing slot %d", slot);
      }
      st.SetImporting(slot, nullptr);
      // The new owner tells everyone now, not at the next ping: a client sent here by MOVED
      // from a node that has not heard yet would be sent back (Redis does the same).
      cl->bus().BroadcastPongSoon();
    }
  } else {
    c.reply.Error(err::kClusterSetSlotSyntax);
    return;
  }
  // Saved without fsync, as Redis saves SETSLOT (an epoch bumped above was fsynced).
  cl->ChangedNoFsync();
  c.reply.Ok();
}

void ReadOnlyCommand(CommandContext& c) {
  if (Need(c) == nullptr) return;
  c.client.set_flag(kClientReadOnly, true);
  c.reply.Ok();
}

void ReadWriteCommand(CommandContext& c) {
  if (Need(c) == nullptr) return;
  c.client.set_flag(kClientReadOnly, false);
  c.reply.Ok();
}

void AskingCommand(CommandContext& c) {
  if (Need(c) == nullptr) return;
  c.client.set_flag(kClientAsking, true);
  c.reply.Ok();
}

}  // namespace

using docs::Block;
using docs::Integer;
using docs::OneOf;
using docs::PureToken;
using docs::String;

void RegisterClusterCommands(CommandTable& t) {
  constexpr uint64_t kAdmin = kCmdAdmin | kCmdStale | kCmdNoAsyncLoading;
  constexpr uint64_t kAdminAcl = kAclAdmin | kAclSlow | kAclDangerous;
  constexpr std::string_view kAllNodes = "O(N) where N is the total number of Cluster nodes";
  constexpr std::string_view kSlotArgs = "O(N) where N is the total number of hash slot arguments";
  constexpr std::string_view kSlotRanges =
      "O(N) where N is the total number of the slots between the start slot and end slot "
      "arguments.";
  // The replies that differ from node to node or call to call carry Redis's tip.
  static constexpr std::string_view kNondeterministic[] = {"bumpepoch",     "count-failure-reports",
                                                           "getkeysinslot", "info",
                                                           "links",         "nodes",
                                                           "replicas",      "shards",
                                                           "slaves",        "slots"};
  auto sub = [&](const char* name, int arity, uint64_t flags, uint64_t acl,
                 std::string_view summary, std::string_view since, std::string_view complexity,
                 std::vector<ArgDoc> args, CommandHandler h) {
    CommandDoc d{.summary = summary, .since = since, .group = "cluster", .complexity = complexity};
    d.args = std::move(args);
    for (std::string_view n : kNondeterministic) {
      if (n == name) d.tips = {"nondeterministic_output"};
    }
    return CommandSpec{
        .name = name, .arity = arity, .flags = flags, .acl = acl, .doc = d, .handler = h};
  };
  auto ranges = [] {
    return std::vector<ArgDoc>{
        Block("start-slot_end-slot", {Integer("start-slot"), Integer("end-slot")}).Multiple()};
  };
  auto node_id = [] { return std::vector<ArgDoc>{String("node-id")}; };

  CommandSpec meet =
      sub("meet", -4, kAdmin, kAdminAcl, "Introduces this node to another node", "3.0.0", "O(1)",
          {String("ip"), Integer("port"), Integer("cluster_bus_port").Since("4.0.0").Optional()},
          ClusterMeet);
  meet.doc.history = {{"4.0.0", "The bus port became an optional third argument."}};
  CommandSpec slaves = sub("slaves", 3, kCmdAdmin | kCmdStale, kAdminAcl,
                           "Lists the replicas of a master (old name of CLUSTER REPLICAS)", "3.0.0",
                           "O(1)", node_id(), ClusterReplicas);
  slaves.doc.doc_flags = kDocDeprecated;
  slaves.doc.deprecated_since = "5.0.0";
  slaves.doc.replaced_by = "`CLUSTER REPLICAS`";
  CommandSpec slots =
      sub("slots", 2, kCmdStale, kAclSlow, "Maps the slot ranges to the nodes serving them",
          "3.0.0", kAllNodes, {}, ClusterSlots);
  slots.doc.doc_flags = kDocDeprecated;
  slots.doc.deprecated_since = "7.0.0";
  slots.doc.replaced_by = "`CLUSTER SHARDS`";
  slots.doc.history = {{"4.0.0", "Each node entry names the node's id."},
                       {"7.0.0", "Each node entry ends with a map of its other names."}};

  CommandSpec cluster{
      .name = "cluster",
      .arity = -2,
      .acl = kAclSlow,
      .doc = CommandDoc{.summary = "The Redis Cluster commands of a node",
                        .since = "3.0.0",
                        .group = "cluster",
                        .complexity = "Depends on subcommand."},
      .subcommands = {
          sub("addslots", -3, kAdmin, kAdminAcl, "Makes this node serve the given slots", "3.0.0",
              kSlotArgs, {Integer("slot").Multiple()}, ClusterAddSlots),
          sub("addslotsrange", -4, kAdmin, kAdminAcl,
              "Makes this node serve the given ranges of slots", "7.0.0", kSlotRanges, ranges(),
              ClusterAddSlotsRange),
          sub("bumpepoch", 2, kAdmin, kAdminAcl, "Gives this node a new config epoch", "3.0.0",
              "O(1)", {}, ClusterBumpEpoch),
          sub("count-failure-reports", 3, kCmdAdmin | kCmdStale, kAdminAcl,
              "Counts the live failure reports about a node", "3.0.0",
              "O(N) where N is the number of failure reports", node_id(),
              ClusterCountFailureReports),
          sub("countkeysinslot", 3, kCmdStale, kAclSlow, "Counts the keys of a hash slot", "3.0.0",
              "O(1)", {Integer("slot")}, ClusterCountKeysInSlot),
          sub("delslots", -3, kAdmin, kAdminAcl, "Stops this node serving the given slots", "3.0.0",
              kSlotArgs, {Integer("slot").Multiple()}, ClusterDelSlots),
          sub("delslotsrange", -4, kAdmin, kAdminAcl,
              "Stops this node serving the given ranges of slots", "7.0.0", kSlotRanges, ranges(),
              ClusterDelSlotsRange),
          sub("failover", -2, kAdmin, kAdminAcl,
              "Makes a replica take over from its master by hand", "3.0.0", "O(1)",
              {OneOf("options", {PureToken("FORCE"), PureToken("TAKEOVER")}).Optional()},
              ClusterFailover),
          sub("flushslots", 2, kAdmin, kAdminAcl, "Stops this node serving any slot", "3.0.0",
              "O(1)", {}, ClusterFlushSlots),
          sub("forget", 3, kAdmin, kAdminAcl, "Drops a node from this node's view", "3.0.0", "O(1)",
              node_id(), ClusterForget),
          sub("getkeysinslot", 4, kCmdStale, kAclSlow, "Lists keys of a hash slot", "3.0.0",
              "O(log(N)) where N is the number of requested keys",
              {Integer("slot"), Integer("count")}, ClusterGetKeysInSlot),
          sub("help", 2, kCmdLoading | kCmdStale, kAclSlow,
              "Lists the CLUSTER subcommands with a short description of each", "5.0.0", "O(1)", {},
              ClusterHelp),
          sub("info", 2, kCmdStale, kAclSlow, "Describes the cluster as this node sees it", "3.0.0",
              "O(1)", {}, ClusterInfo),
          sub("keyslot", 3, kCmdStale, kAclSlow, "Computes the hash slot of a key", "3.0.0",
              "O(N) where N is the number of bytes in the key", {String("key")}, ClusterKeySlot),
          sub("links", 2, kCmdStale, kAclSlow, "Describes this node's bus links to its peers",
              "7.0.0", kAllNodes, {}, ClusterLinks),
          std::move(meet),
          sub("myid", 2, kCmdStale, kAclSlow, "Returns this node's id", "3.0.0", "O(1)", {},
              ClusterMyId),
          sub("nodes", 2, kCmdStale, kAclSlow, "Lists the nodes as this node sees them", "3.0.0",
              kAllNodes, {}, ClusterNodes),
          sub("replicas", 3, kCmdAdmin | kCmdStale, kAdminAcl, "Lists the replicas of a master",
              "5.0.0", "O(1)", node_id(), ClusterReplicas),
          sub("replicate", 3, kAdmin, kAdminAcl, "Makes this node a replica of a master", "3.0.0",
              "O(1)", node_id(), ClusterReplicate),
          sub("reset", -2, kCmdAdmin | kCmdNoScript | kCmdStale, kAdminAcl,
              "Makes this node forget its cluster", "3.0.0",
              "O(N) where N is the number of known nodes. The command may execute a FLUSHALL as "
              "a side effect.",
              {OneOf("hard_soft", {PureToken("HARD"), PureToken("SOFT")}).Optional()},
              ClusterReset),
          sub("saveconfig", 2, kAdmin, kAdminAcl, "Writes the cluster config file now", "3.0.0",
              "O(1)", {}, ClusterSaveConfig),
          sub("set-config-epoch", 3, kAdmin, kAdminAcl, "Sets a new node's config epoch", "3.0.0",
              "O(1)", {Integer("config-epoch")}, ClusterSetConfigEpoch),
          sub("setslot", -4, kAdmin, kAdminAcl,
              "Changes a slot's owner or migration state on this node", "3.0.0", "O(1)",
              {Integer("slot"),
               OneOf("subcommand",
                     {String("node-id").Token("IMPORTING"), String("node-id").Token("MIGRATING"),
                      String("node-id").Token("NODE"), PureToken("STABLE")})},
              ClusterSetSlot),
          sub("shards", 2, kCmdStale, kAclSlow, "Describes the shards: their slots and nodes",
              "7.0.0", "O(N) where N is the total number of cluster nodes", {}, ClusterShards),
          std::move(slaves),
          std::move(slots),
      }};
  t.Register(std::move(cluster));
  auto connection = [](const char* name, uint64_t flags, std::string_view summary,
                       CommandHandler h) {
    return CommandSpec{
        .name = name,
        .arity = 1,
        .flags = flags,
        .acl = kAclFast | kAclConnection,
        .doc =
            CommandDoc{
                .summary = summary, .since = "3.0.0", .group = "cluster", .complexity = "O(1)"},
        .handler = h};
  };
  t.Register(connection("readonly", kCmdLoading | kCmdStale | kCmdFast,
                        "Lets this connection read a replica's slots", ReadOnlyCommand));
  t.Register(connection("readwrite", kCmdLoading | kCmdStale | kCmdFast,
                        "Ends READONLY on this connection", ReadWriteCommand));
  t.Register(connection("asking", kCmdFast,
                        "Lets the next command use a slot this node is importing", AskingCommand));
}

}  // namespace redistp
