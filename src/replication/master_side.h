// The master side of replication: the replicas' links, full syncs, the backlog, WAIT.
// (Filled in by the master-side work; see replication.h for the model.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/reply_builder.h"
#include "server/client.h"

namespace redistp {

class Replication;

class MasterSide {
 public:
  explicit MasterSide(Replication& repl);
  ~MasterSide();
  MasterSide(const MasterSide&) = delete;
  MasterSide& operator=(const MasterSide&) = delete;

  // Stream bytes (Replication::FeedStream): into the backlog, out to the replicas.
  void Feed(std::string_view bytes);
  // INFO replication: connected_slaves, min_slaves_good_slaves, slaveN lines.
  void WriteReplicasInfo(std::string* out);
  // INFO replication: the repl_backlog_* lines.
  void WriteBacklogInfo(std::string* out);
  // ROLE's reply on a master.
  void WriteRole(ReplyBuilder& rb);

  void Cron();
  void BeforeSleep();
  void OnClientClose(Client& c);
  bool PrepareShutdown(int flags);

 private:
  Replication& repl_;
};

}  // namespace redistp
