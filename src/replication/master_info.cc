// The master side's reports (master_side.h): INFO replication's replica and backlog lines and
// ROLE's master form, in Redis 7.0's words and order.
#include <string>

#include "replication/master_side.h"
#include "replication/replication.h"
#include "server/server.h"

namespace redistp {

// ---- INFO, ROLE --------------------------------------------------------------------------------

void MasterSide::WriteReplicasInfo(std::string* out) {
  out->append("connected_slaves:" + std::to_string(links_.size()) + "\r\n");
  if (ConfigInt("min-replicas-to-write", 0) > 0 && ConfigInt("min-replicas-max-lag", 10) > 0) {
    RefreshGoodReplicas();
    out->append("min_slaves_good_slaves:" + std::to_string(good_replicas_) + "\r\n");
  }
  const int64_t now = repl_.server().NowMs();
  int n = 0;
  for (auto& l : links_) {
    std::string ip = l->announced_ip;
    if (ip.empty()) ip = l->client->addr.substr(0, l->client->addr.rfind(':'));
    out->append(
        "slave" + std::to_string(n++) + ":ip=" + ip + ",port=" + std::to_string(l->listening_port) +
        ",state=" + ReplicaStateName(l->state) + ",offset=" + std::to_string(l->ack_offset) +
        ",lag=" + std::to_string(now / 1000 - l->ack_time_ms / 1000) + "\r\n");
  }
}

void MasterSide::WriteBacklogInfo(std::string* out) {
  const int64_t size = ConfigInt("repl-backlog-size", 1 << 20);
  out->append("repl_backlog_active:" + std::string(backlog_ ? "1" : "0") + "\r\n");
  out->append("repl_backlog_size:" + std::to_string(size) + "\r\n");
  out->append("repl_backlog_first_byte_offset:" +
              std::to_string(backlog_ ? backlog_->first_offset() : 0) + "\r\n");
  out->append("repl_backlog_histlen:" + std::to_string(backlog_ ? backlog_->histlen() : 0) +
              "\r\n");
}

void MasterSide::WriteRole(ReplyBuilder& rb) {
  int online = 0;
  for (auto& l : links_) online += l->state == ReplicaState::kOnline ? 1 : 0;
  rb.Array(3);
  rb.Bulk("master");
  rb.Int(repl_.master_repl_offset());
  rb.Array(online);
  for (auto& l : links_) {
    if (l->state != ReplicaState::kOnline) continue;
    std::string ip = l->announced_ip;
    if (ip.empty()) ip = l->client->addr.substr(0, l->client->addr.rfind(':'));
    rb.Array(3);
    rb.Bulk(ip);
    rb.Bulk(std::to_string(l->listening_port));
    rb.Bulk(std::to_string(l->ack_offset));
  }
}

const char* ReplicaStateName(ReplicaState s) {
  switch (s) {
    case ReplicaState::kWaitBgsaveStart:
    case ReplicaState::kWaitBgsaveEnd:
      return "wait_bgsave";
    case ReplicaState::kSendBulk:
      return "send_bulk";
    case ReplicaState::kOnline:
      return "online";
  }
  return "online";
}

}  // namespace redistp
