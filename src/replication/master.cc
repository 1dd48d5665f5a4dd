// The master side (master_side.h). No replica can attach yet: there is no backlog, and INFO and
// ROLE describe a master without replicas.
#include "replication/master_side.h"

#include "replication/replication.h"

namespace redistp {

MasterSide::MasterSide(Replication& repl) : repl_(repl) {}
MasterSide::~MasterSide() = default;

void MasterSide::Feed(std::string_view bytes) { (void)bytes; }

void MasterSide::WriteReplicasInfo(std::string* out) { out->append("connected_slaves:0\r\n"); }

void MasterSide::WriteBacklogInfo(std::string* out) {
  std::string size = "1048576";
  repl_.server().config().GetValue("repl-backlog-size", &size);
  out->append("repl_backlog_active:0\r\nrepl_backlog_size:" + size +
              "\r\nrepl_backlog_first_byte_offset:0\r\nrepl_backlog_histlen:0\r\n");
}

void MasterSide::WriteRole(ReplyBuilder& rb) {
  rb.Array(3);
  rb.Bulk("master");
  rb.Int(repl_.master_repl_offset());
  rb.Array(0);
}

void MasterSide::Cron() {}
void MasterSide::BeforeSleep() {}
void MasterSide::OnClientClose(Client& c) { (void)c; }
bool MasterSide::PrepareShutdown(int flags) {
  (void)flags;
  return true;
}

}  // namespace redistp
