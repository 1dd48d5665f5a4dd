// The replication core: identity, the stream, role changes, INFO and ROLE (replication.h).
#include "replication/replication.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "replication/failover.h"
#include "replication/master_side.h"
#include "replication/promotion.h"
#include "replication/replica_side.h"

namespace redistp {

namespace {

// 40 random hex characters (Redis's getRandomHexChars for run ids and replication ids).
std::string RandomReplId() {
  unsigned char raw[20] = {};
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t n = read(fd, raw, sizeof raw);
    (void)n;
    close(fd);
  }
  static const char kHex[] = "0123456789abcdef";
  std::string id(40, '0');
  for (size_t i = 0; i < 20; ++i) {
    id[2 * i] = kHex[raw[i] >> 4];
    id[2 * i + 1] = kHex[raw[i] & 15];
  }
  return id;
}

void Line(std::string* out, const std::string& text) {
  out->append(text);
  out->append("\r\n");
}

}  // namespace

Replication::Replication(Server& server)
    : server_(server),
      replid_(RandomReplId()),
      replid2_(40, '0'),
      master_(std::make_unique<MasterSide>(*this)),
      replica_(std::make_unique<ReplicaSide>(*this)),
      failover_(std::make_unique<Failover>(*this)),
      promotion_(std::make_unique<Promotion>(server)) {
  // The shutdown sequence asks the failover's view of the replicas whether they caught up.
  server_.set_replica_acks(failover_.get());
}

Replication::~Replication() = default;

Replication& Replication::Of(Server& server) {
  Replication* r = server.subsystem<Replication>();
  if (r == nullptr) r = &server.AttachSubsystem(std::make_unique<Replication>(server));
  return *r;
}

void Replication::ChangeReplicationId() {
  replid_ = RandomReplId();
  ClearPreviousIdentity();
}

void Replication::ShiftReplicationId() {
  replid2_ = replid_;
  // The previous history is valid up to the present offset: a replica at exactly this offset
  // can continue, so the first invalid offset is the next byte.
  second_replid_offset_ = master_repl_offset_ + 1;
  replid_ = RandomReplId();
}

void Replication::SetIdentity(std::string replid, int64_t offset) {
  replid_ = std::move(replid);
  master_repl_offset_ = offset;
  master_->AlignBacklog();
}

void Replication::SetPreviousIdentity(std::string replid2, int64_t second_offset) {
  replid2_ = std::move(replid2);
  second_replid_offset_ = second_offset;
}

void Replication::ClearPreviousIdentity() {
  replid2_.assign(40, '0');
  second_replid_offset_ = -1;
}

bool Replication::is_replica() const { return replica_->active(); }

void Replication::FeedStream(std::string_view bytes) {
  master_repl_offset_ += static_cast<int64_t>(bytes.size());
  master_->Feed(bytes);
}

void Replication::OnPropagate(const std::vector<std::string>& argv) {
  // The master side encodes the records (with its own SELECT bookkeeping); a replica proxies
  // its master's bytes instead (the replica side feeds them), so its own records are not fed.
  if (!is_replica()) master_->Propagate(argv);
}

// The master side first: once our own records feed the stream again, the releases the
// promotion schedules reach our replicas. The replicas saw the old master's SELECTs, not ours,
// so the next record says its database.
void Replication::BecameMaster() {
  master_->OnRoleChanged(true);
  master_->ForgetStreamDb();
  promotion_->BecameMaster();
}
void Replication::BecameReplica() {
  master_->OnRoleChanged(false);
  promotion_->BecameReplica();
}

void Replication::WriteInfo(std::string* out) {
  Line(out, is_replica() ? "role:slave" : "role:master");
  if (is_replica()) replica_->WriteInfo(out);
  master_->WriteReplicasInfo(out);
  Line(out, std::string("master_failover_state:") + failover_->StateName());
  Line(out, "master_replid:" + replid_);
  Line(out, "master_replid2:" + replid2_);
  Line(out, "master_repl_offset:" + std::to_string(master_repl_offset_));
  Line(out, "second_repl_offset:" + std::to_string(second_replid_offset_));
  master_->WriteBacklogInfo(out);
}

void Replication::WriteRole(ReplyBuilder& rb) {
  if (is_replica()) {
    replica_->WriteRole(rb);
  } else {
    master_->WriteRole(rb);
  }
}

// The sink is not attached here: records are built only while something consumes them, so the
// master side attaches it when it creates the backlog (the first replica), as Redis creates its
// backlog then.
Status Replication::Start() { return replica_->Start(); }

void Replication::Stop() { server_.propagator().RemoveSink(this); }

void Replication::Cron() {
  master_->Cron();
  replica_->Cron();
  failover_->Tick();
  promotion_->Cron();
}

void Replication::BeforeSleep() {
  master_->BeforeSleep();
  replica_->BeforeSleep();
  // A failover goes on in the turn that brought its target's acknowledgement.
  if (failover_->state() == Failover::State::kWaitingForSync) failover_->Tick();
}

void Replication::OnClientClose(Client& c) {
  master_->OnClientClose(c);
  replica_->OnClientClose(c);
}

bool Replication::PrepareShutdown(int flags) { return master_->PrepareShutdown(flags); }

size_t Replication::NotCountedMemory() const { return master_->replicas_output_bytes(); }

}  // namespace redistp
