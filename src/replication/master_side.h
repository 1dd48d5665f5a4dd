// The master side of replication: the replicas' links, full syncs, the backlog, WAIT.
//
// Model. A connection becomes a replica with SYNC or PSYNC (ClientKind::kReplica from then on;
// it keeps the client's normal output path, under the `replica` output-buffer class). Each has
// a ReplicaLink here, in the order they attached (INFO's slaveN numbering), that walks Redis's
// states:
//   wait_bgsave (start)  no snapshot serves it yet; it gets "\n" keepalives;
//   wait_bgsave (end)    a snapshot taken at offset `initial_offset` will serve it; the stream
//                        from that offset is kept in `pending` until the RDB is out;
//   send_bulk            the RDB file is being queued to it ($<len> then the file);
//   online               it receives the stream as it is fed.
// Full syncs: from disk (a BGSAVE through Persistence, whose file every replica waiting for it
// receives, so several replicas share one child) or diskless (repl-diskless-sync, for replicas
// that said `capa eof`: a child writes the RDB into a pipe and this process relays it to each,
// framed "$EOF:<mark>\r\n ... <mark>"; a diskless replica's stream starts at its first ACK,
// once it has loaded the RDB). One child at a time for everything, as in Redis: a sync that
// finds another child waits for it.
//
// The stream: Replication::OnPropagate hands the propagation records here (Propagate), which
// encodes them as RESP, prefixed by the SELECT a fresh stream needs, and feeds them through the
// core (FeedStream -> Feed): into the backlog (backlog.h), and to each replica as its state
// allows. The records reach us only while the backlog exists: it is created at the first
// replica (with a new replication id, as Redis does) and only then is the sink attached to the
// propagator, so a server without replicas builds no record for them. repl-backlog-ttl frees
// it when no replica has been connected for that long.
//
// Acknowledgements: replicas send REPLCONF ACK <offset>; WAIT blocks its caller until enough
// replicas acknowledged its offset (asking with REPLCONF GETACK * in the stream once per loop
// turn while someone waits), and min-replicas-to-write/-max-lag count the replicas whose last
// ACK is recent enough (the admission gate reads Server::repl_too_few_replicas).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "persistence/rdb_save.h"
#include "protocol/reply_builder.h"
#include "replication/backlog.h"
#include "server/client.h"
#include "server/event_handle.h"

namespace redistp {

class Replication;
class WaitKind;
class WaitAofKind;

// What a replica's snapshot leaves out (REPLCONF rdb-filter-only). A replica that asked for a
// filter gets a snapshot of its own, always through a socket (never the dump file, which must
// hold everything), made by a child that serves only the replicas asking the same filter.
inline constexpr uint8_t kExcludeData = 1;
inline constexpr uint8_t kExcludeFunctions = 2;

enum class ReplicaState : uint8_t { kWaitBgsaveStart, kWaitBgsaveEnd, kSendBulk, kOnline };
// The state= word of INFO's slaveN line (and of Redis's log): both waits for a snapshot are
// wait_bgsave.
const char* ReplicaStateName(ReplicaState s);

struct ReplicaLink {
  Client* client = nullptr;
  ReplicaState state = ReplicaState::kWaitBgsaveStart;
  int listening_port = 0;    // REPLCONF listening-port
  std::string announced_ip;  // REPLCONF ip-address
  bool capa_eof = false;     // can load a diskless ($EOF:) payload
  bool capa_psync2 = false;  // understands +CONTINUE <replid>
  bool pre_psync = false;    // attached with SYNC: no +FULLRESYNC, no ACKs
  bool rdb_only = false;     // REPLCONF rdb-only 1: closed once its snapshot is out
  uint8_t rdb_exclude = 0;   // REPLCONF rdb-filter-only: kExclude* bits of its snapshot
  int64_t ack_offset = 0;    // last REPLCONF ACK
  // Last REPLCONF ACK ... FACK: the stream offset the replica's AOF has fsynced (WAITAOF). A
  // replica that sends none (AOF off, or Redis before 7.2) stays at 0: it never counts.
  int64_t fack_offset = 0;
  int64_t ack_time_ms = 0;    // when it came (or when the link began)
  int64_t wait_since_ms = 0;  // entered wait_bgsave (start): the diskless delay counts from it
  int64_t initial_offset = -1;
  bool diskless = false;             // its snapshot comes through the pipe
  bool stream_on_first_ack = false;  // diskless: the stream waits for its first ACK
  std::string pending;               // the stream since initial_offset, not yet sent
  int rdb_fd = -1;                   // send_bulk: the RDB file and what is left of it
  int64_t rdb_left = 0;
};

class MasterSide {
 public:
  explicit MasterSide(Replication& repl);
  ~MasterSide();
  MasterSide(const MasterSide&) = delete;
  MasterSide& operator=(const MasterSide&) = delete;

  // Stream bytes (Replication::FeedStream): into the backlog, out to the replicas.
  void Feed(std::string_view bytes);
  // One propagation record (Replication::OnPropagate on a master): encoded and fed.
  void Propagate(const std::vector<std::string>& argv);

  // --- the commands (commands/repl_master_cmd.cc parses, these act) ----------------------------
  // SYNC (replid empty) or PSYNC replid offset from `c`: a partial resync when the backlog
  // covers it, else a full sync. Replies (or not) as Redis does.
  void SyncCommand(Client& c, bool psync, std::string_view replid, int64_t offset);
  // REPLCONF ACK <offset> [FACK <aof-offset>]: from a replica only; no reply. fack < 0: the
  // replica sent no FACK (its count for WAITAOF stays where it was).
  void Ack(Client& c, int64_t offset, int64_t fack = -1);
  // REPLCONF listening-port / ip-address / capa, remembered until the connection asks SYNC.
  void SetListeningPort(Client& c, int port);
  void SetAnnouncedIp(Client& c, std::string_view ip);
  void AddCapa(Client& c, std::string_view capa);
  // REPLCONF rdb-only <0|1> and rdb-filter-only (the kExclude* bits; 0 is no filter).
  void SetRdbOnly(Client& c, bool on);
  void SetRdbExclude(Client& c, uint8_t exclude);
  // WAIT numreplicas timeout_ms: replies at once when it can, else blocks `c`.
  void WaitCommand(Client& c, bool in_multi, int64_t numreplicas, int64_t timeout_ms);
  // Replicas whose ACK reached `offset` (online ones).
  int CountAcked(int64_t offset) const;
  // WAITAOF numlocal numreplicas timeout_ms (the checks of its arguments and of the role are
  // the command's): replies [local, replicas] at once when both counts are reached (or inside
  // MULTI), else blocks `c` until they are, or until the timeout replies the counts reached.
  // The targets are the AOF's taken bytes and the stream offset at the call: every write the
  // server took before it, the caller's own included.
  void WaitAofCommand(Client& c, bool in_multi, int64_t numlocal, int64_t numreplicas,
                      int64_t timeout_ms);
  // Replicas whose AOF fsync (FACK) reached `offset` (online ones).
  int CountFsynced(int64_t offset) const;

  // The core, when a replica adopts its master's identity (Replication::SetIdentity): the
  // backlog holds the master's history from the present offset on (same id), so this server's
  // own replicas and, after a promotion, the old master's other replicas continue with PSYNC.
  // Kept when it already ends at the present offset.
  void AlignBacklog();
  // The core's BecameMaster/BecameReplica: the sink is attached only on a master.
  void OnRoleChanged(bool master);

  // INFO replication: connected_slaves, min_slaves_good_slaves, slaveN lines.
  void WriteReplicasInfo(std::string* out);
  // INFO replication: the repl_backlog_* lines.
  void WriteBacklogInfo(std::string* out);
  // ROLE's reply on a master.
  void WriteRole(ReplyBuilder& rb);
  // INFO stats.
  uint64_t sync_full() const { return sync_full_; }
  uint64_t sync_partial_ok() const { return sync_partial_ok_; }
  uint64_t sync_partial_err() const { return sync_partial_err_; }
  size_t replica_count() const { return links_.size(); }
  // Bytes the backlog's ring holds (its whole capacity, allocated when it is created); 0
  // without a backlog. INFO mem_replication_backlog, MEMORY STATS replication.backlog.
  size_t backlog_memory() const { return backlog_ ? backlog_->capacity() : 0; }
  // Bytes waiting in the replicas' output buffers (what eviction leaves out). O(replicas).
  size_t replicas_output_bytes() const;
  // The replicas' links, read by FAILOVER and the shutdown sequence (failover_peers.cc).
  const std::vector<std::unique_ptr<ReplicaLink>>& links() const { return links_; }
  // "ip:port" as Redis names a replica in its log.
  std::string Name(const ReplicaLink& l) const;
  // REPLCONF GETACK * to the replicas now (FAILOVER, a shutdown waiting for replicas).
  void RequestAcks();
  // This server was promoted: the stream it now writes names its database again before the
  // first command, whatever the master it followed had selected (Redis resets slaveseldb).
  void ForgetStreamDb() { stream_db_ = -1; }

  // The aux fields a master's saves write while the backlog exists (the replication id, its
  // offset, the stream's database); false without a backlog.
  bool SaveInfo(std::string* id, int64_t* offset, int* stream_db) const;

  // A cluster's manual failover holds the replicas' PINGs while the master is paused, so the
  // offset its replica must reach stays put (as FAILOVER's own state does).
  void HoldPings(bool on) { hold_pings_ = on; }

  void Cron();
  void BeforeSleep();
  void OnClientClose(Client& c);
  bool PrepareShutdown(int flags);

  // Recounts the good replicas and sets Server::repl_too_few_replicas (the admission gate's
  // NOREPLICAS). Runs whenever links or ACKs change, each cron tick, and when CONFIG SET
  // changes min-replicas-to-write or min-replicas-max-lag, so the next command sees it.
  void RefreshGoodReplicas();

 private:
  friend class WaitKind;
  friend class WaitAofKind;
  struct HandshakeInfo {
    int listening_port = 0;
    std::string ip;
    bool capa_eof = false;
    bool capa_psync2 = false;
    bool rdb_only = false;
    uint8_t rdb_exclude = 0;
  };
  ReplicaLink* Find(const Client& c);
  // The REPLCONF options `c` sent so far (a new row when none).
  HandshakeInfo& Handshake(const Client& c);
  // Whether a PSYNC can continue; logs why not.
  bool TryPartial(Client& c, std::string_view replid, int64_t offset, const HandshakeInfo& hs);
  void CreateBacklog(bool new_history);
  void FreeBacklog();
  // Starts the snapshot for the replicas in wait_bgsave (start): by disk (the unfiltered ones),
  // or by socket for those that said `capa eof` and ask for the snapshot filter `exclude`.
  void StartSyncChild(bool diskless, uint8_t exclude = 0);
  // A replica that asked for its snapshot only (rdb-only) has it: closed once it is sent.
  void FinishRdbOnly(ReplicaLink& l);
  // A replica gets its snapshot at `offset`: +FULLRESYNC, state wait_bgsave (end).
  void SetupFullResync(ReplicaLink& l, int64_t offset);
  void OnDiskSnapshotDone(bool ok);
  void PumpRdbFile(ReplicaLink& l);
  void PutOnline(ReplicaLink& l);
  void StartStream(ReplicaLink& l);
  // Diskless: the pipe from the child.
  static void PipeCallback(int fd, short what, void* arg);
  void ReadPipe();
  void EndPipe();
  void Drop(ReplicaLink& l, const char* why);
  // The link of replica connection `c`, or nullptr (not a replica, or already dropped).
  ReplicaLink* LinkOf(const Client* c);
  void ServeWaiters();
  int64_t ConfigInt(const char* name, int64_t dflt) const;
  bool ConfigBool(const char* name) const;

  Replication& repl_;
  std::vector<std::unique_ptr<ReplicaLink>> links_;
  // REPLCONF options sent before SYNC/PSYNC, by client id.
  std::vector<std::pair<uint64_t, HandshakeInfo>> handshakes_;
  std::unique_ptr<ReplBacklog> backlog_;
  int64_t no_replicas_since_ms_ = 0;
  // The database of the last SELECT in the stream; -1 forces one before the next record.
  int stream_db_ = -1;
  std::string encode_buf_;
  // The child serving syncs (disk or diskless) is ours.
  bool sync_child_running_ = false;
  bool sync_child_diskless_ = false;
  int pipe_fd_ = -1;
  EventPtr pipe_ev_;
  bool pipe_paused_ = false;
  std::string eof_mark_;
  // WAIT: the blocked callers (client id, offset, count), and whether to ask for ACKs.
  // A WAITAOF waiter (`aof`) also waits for the local AOF's synced bytes to reach
  // `local_target` when numlocal > 0, and counts FACKs instead of ACKs.
  struct Waiter {
    uint64_t client;
    int64_t offset;
    int64_t numreplicas;
    bool aof = false;
    int64_t numlocal = 0;
    uint64_t local_target = 0;
  };
  // WAITAOF's local count: 1 when the AOF is on and synced past `target`.
  int LocalSynced(uint64_t target) const;
  std::vector<Waiter> waiters_;
  bool ask_acks_ = false;
  bool acks_arrived_ = false;
  std::unique_ptr<WaitKind> wait_kind_;
  std::unique_ptr<WaitAofKind> waitaof_kind_;
  int64_t last_ping_ms_ = 0;
  bool hold_pings_ = false;
  int64_t last_keepalive_ms_ = 0;
  int good_replicas_ = 0;
  uint64_t sync_full_ = 0;
  uint64_t sync_partial_ok_ = 0;
  uint64_t sync_partial_err_ = 0;
};

}  // namespace redistp
