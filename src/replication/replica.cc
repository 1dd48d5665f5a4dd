// The replica side (replica_side.h). Following a master is not built yet.
#include "replication/replica_side.h"

#include "replication/replication.h"

namespace redistp {

ReplicaSide::ReplicaSide(Replication& repl) : repl_(repl) {}
ReplicaSide::~ReplicaSide() = default;

Status ReplicaSide::Start() { return Status::Ok(); }
void ReplicaSide::WriteInfo(std::string* out) { (void)out; }
void ReplicaSide::WriteRole(ReplyBuilder& rb) { (void)rb; }
void ReplicaSide::Cron() {}
void ReplicaSide::OnClientClose(Client& c) { (void)c; }

}  // namespace redistp
