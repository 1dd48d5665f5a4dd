// The replica side of replication: REPLICAOF, the link to the master, applying its stream.
//
// Model. A replica is in one of Redis's link states (LinkState below). REPLICAOF host port (or
// `replicaof` in redis.conf) moves it to kConnect; the cron, once a second, starts a connection
// from kConnect. The link then lives in the event loop as a non-blocking socket owned by the
// replica side (master_link.cc): the TCP connect, the handshake (PING, AUTH, REPLCONF
// listening-port / ip-address / capa, PSYNC), and on +FULLRESYNC the transfer of the master's
// RDB (`$<len>` or the diskless `$EOF:<mark>` form) to a temporary file in `dir` or, with
// repl-diskless-load, to memory; then the old data is flushed and the RDB loaded. On
// +CONTINUE, or once the RDB is loaded, the socket becomes a Client of kind kMasterLink and
// the server's normal dispatcher runs the master's commands on it; what the socket had already
// delivered beyond the handshake is its first input.
//
// The stream. The server tells the replica side about every command the link applied
// (server/replica_role.h). Its exact bytes go through Replication::FeedStream, so this
// server's offset (master_repl_offset) is the master's offset of the last command applied
// whole, and its own replicas and backlog receive the master's stream byte for byte. The bytes
// of a MULTI are held until its EXEC, as Redis counts them. REPLCONF GETACK is answered with
// REPLCONF ACK <offset>, which is also sent every second.
//
// PSYNC. The replica asks to continue from its own identity: its replication id and offset are
// its master's (adopted on +FULLRESYNC, kept after the link drops, read back from the RDB's
// aux fields at startup), so a link that drops, a restart, or a new master that was a fellow
// replica can all continue with +CONTINUE. Only a fresh server with nothing to continue from
// sends PSYNC ? -1.
//
// Roles. REPLICAOF NO ONE closes the link, keeps the history as the previous id
// (Replication::ShiftReplicationId) and calls Replication::BecameMaster; becoming a replica
// calls Replication::BecameReplica. The server layer learns the role through ReplicaRole
// (READONLY, MASTERDOWN, no active expiry) and the expiry gate's replica mode.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/reply_builder.h"
#include "server/client.h"
#include "server/event_handle.h"
#include "server/replica_role.h"
#include "util/status.h"

namespace redistp {

class Replication;

class ReplicaSide : public MasterLinkObserver {
 public:
  // Redis's repl_state (ROLE names them).
  enum class LinkState { kNone, kConnect, kConnecting, kHandshake, kTransfer, kConnected };

  explicit ReplicaSide(Replication& repl);
  ~ReplicaSide() override;
  ReplicaSide(const ReplicaSide&) = delete;
  ReplicaSide& operator=(const ReplicaSide&) = delete;

  // Whether a master is configured (REPLICAOF host port, or replicaof in redis.conf).
  bool active() const { return !master_host_.empty(); }
  LinkState state() const { return state_; }
  const std::string& master_host() const { return master_host_; }
  int master_port() const { return master_port_; }

  // Startup: follows the master redis.conf names, if any, continuing from the replication
  // identity the loaded RDB carried.
  Status Start();

  // A cluster node restarting as a replica (its nodes.conf says so): the replication identity
  // its RDB carried becomes the history to continue from, as `replicaof` in redis.conf gets it
  // at Start. Call before the first Follow; false (nothing changed) when the RDB had none.
  bool AdoptLoadedIdentity();

  // What Follow does when asked for the master already followed: REPLICAOF keeps the link
  // (Redis answers "+OK Already connected to specified master"); a cluster node told its
  // master again (CLUSTER REPLICATE, Redis's clusterSetMaster) drops the link, or the
  // handshake under way, and connects again, continuing with PSYNC from the link's state.
  enum class IfSameMaster { kKeepLink, kReconnect };

  // REPLICAOF host port: follows that master from now on (connecting at once). `who` is the
  // requesting client's description for the log ("" logs nothing). Returns false (nothing
  // done) when this master is already the one followed and `same` says kKeepLink.
  bool Follow(const std::string& host, int port, const std::string& who,
              IfSameMaster same = IfSameMaster::kKeepLink);
  // FAILOVER's last step on the old master: follows the target, whose first PSYNC carries
  // FAILOVER (the target promotes itself when it accepts). `on_result` learns whether the
  // target accepted (+CONTINUE or +FULLRESYNC) or refused it (an error reply); it is called
  // once, unless the attempt is superseded by another REPLICAOF.
  void FollowForFailover(const std::string& host, int port,
                         std::function<void(bool accepted)> on_result);
  // REPLICAOF NO ONE: stops following (nothing to do when not a replica). `reason` completes
  // the log line "MASTER MODE enabled (<reason>)", e.g. "user request from '<client>'".
  void Unfollow(const std::string& reason);

  // How long this replica has gone without its master's data, in ms (a cluster replica's
  // failover validity, Redis's data_age): since the last read on a synchronised link, else
  // since the link went down; INT64_MAX when it never was up.
  int64_t MasterDataAgeMs() const;

  // INFO replication: master_host ... replica_announced (only while active()).
  void WriteInfo(std::string* out);
  // ROLE's reply on a replica.
  void WriteRole(ReplyBuilder& rb);

  void Cron();
  // Every loop turn, after the AOF's write and fsync: when the offset our AOF has fsynced moved,
  // an ACK carries the new FACK at once, so a WAITAOF on the master is not held for a second.
  void BeforeSleep();
  void OnClientClose(Client& c);
  // Persistence's shutdown: nothing to flush, the link just closes with the process.

  // MasterLinkObserver: a command of the master link ran.
  void OnMasterCommandApplied(Client& link, std::string_view raw,
                              const std::vector<std::string_view>& args) override;

 private:
  // --- master_link.cc: the connection, the handshake, the transfer ---------------------------
  // Opens the non-blocking connection (kConnect -> kConnecting); on failure stays in kConnect.
  void Connect();
  // Closes the handshake/transfer socket and whatever the transfer held (not the link client).
  void CancelHandshake();
  static void OnSocketEvent(int fd, short what, void* arg);
  void OnConnected();
  // tls-replication: one step of the TLS handshake with the master; its end starts the
  // replication handshake (PING ...). The socket event waits on what OpenSSL asked for.
  void ContinueTlsHandshake();
  // The replication handshake begins: the socket is connected (and TLS established).
  void StartHandshake();
  void OnReadable();
  // Writes all of `data` on the connection (plain or TLS); a TLS write that must wait polls
  // the socket briefly (the handshake's commands are small). False on an error.
  bool WriteLink(std::string_view data);
  // Runs the handshake steps the buffered input allows; false when the link was dropped.
  bool AdvanceHandshake();
  // Sends one command of the handshake.
  bool SendCommand(const std::vector<std::string>& argv);
  // One reply line from in_ (without CR LF); false when none is complete yet.
  bool TakeLine(std::string* line);
  // The PSYNC reply; false when the link was dropped.
  bool HandlePsyncReply(const std::string& line);
  // Moves transfer bytes from in_ to the file or the memory image.
  bool ConsumeTransfer();
  bool FinishTransfer();
  // The RDB is loaded (or +CONTINUE came): the socket becomes the master-link client.
  void AttachLink(int db_index);
  // Drops the connection attempt with a log line; the cron retries.
  void FailLink(const char* why);

  // --- replica.cc ----------------------------------------------------------------------------
  // REPLCONF ACK <offset>, with FACK <offset fsynced> while our AOF is on (Redis 7.2's form; a
  // Redis 7.0 master reads the first pair and ignores the rest).
  void SendAck();
  // The stream offset our AOF has fsynced, or -1 while the AOF is not on: marks (AOF bytes
  // taken, stream offset) are recorded as the stream is applied, and an fsync that covers a
  // mark's bytes makes its offset durable.
  int64_t FsyncedOffset();
  // Closes this server's own replicas' connections: our history changed under them (a full
  // sync, a new replication id, a promotion); they reconnect and PSYNC, as with Redis.
  void DisconnectReplicas();
  // Sets the server layer's view of the role (ReplicaRole, the expiry gate, CONFIG replicaof).
  void PublishRole();
  int64_t now_ms() const;

  Replication& repl_;
  std::string master_host_;
  int master_port_ = 0;
  LinkState state_ = LinkState::kNone;

  // Continuing: whether this server's identity describes a history it can continue (a cached
  // master, in Redis's words), and the database its stream had selected (-1: none).
  bool have_cached_ = false;
  int cached_db_ = -1;
  bool adopted_from_rdb_ = false;  // AdoptLoadedIdentity ran; the next Follow keeps it

  // The connection while it is not yet a client.
  int fd_ = -1;
  EventPtr ev_;
  TlsConnPtr tls_;  // tls-replication: the TLS session over fd_, handed to the link client
  std::string in_;  // bytes read and not yet used
  enum class Step { kPing, kAuth, kPort, kIp, kCapa, kPsync, kBulkHeader } step_ = Step::kPing;
  std::string psync_replid_;  // the id and offset +FULLRESYNC named
  // A FAILOVER's PSYNC is pending: its next PSYNC carries FAILOVER and its reply goes here.
  std::function<void(bool accepted)> failover_result_;
  int64_t psync_offset_ = 0;

  // The transfer of a full sync.
  bool to_memory_ = false;
  std::string tmp_path_;
  int tmp_fd_ = -1;
  std::string image_;           // the RDB, when loaded from memory
  int64_t transfer_size_ = -1;  // -1: the EOF form, size unknown
  int64_t transfer_read_ = 0;
  std::string eof_mark_;  // the 40 bytes that end an EOF-form transfer
  std::string tail_;      // the last bytes received, to find the mark
  int64_t transfer_start_ms_ = 0;
  int64_t last_io_ms_ = 0;

  // The synchronised link.
  Client* link_ = nullptr;
  std::string pending_;  // bytes of an open MULTI from the master, applied with its EXEC
  int64_t last_ack_ms_ = 0;
  std::deque<std::pair<uint64_t, int64_t>> fack_marks_;  // (AOF taken bytes, stream offset)
  int64_t fack_ = 0;                                     // the last FsyncedOffset
  int64_t sent_fack_ = -1;                               // the FACK of the last ACK sent
  int64_t down_since_ms_ = 0;                            // when the link went down (0: never up)
  int64_t last_connect_try_ms_ = 0;
};

}  // namespace redistp
