// The replica's handshake as the master sees it (master_side.h), and the end of a snapshot-only
// replica.
//
// Model. Before SYNC/PSYNC a connection tells the master about itself with REPLCONF: the port
// and address it listens on, its capabilities (`eof`: it can load a snapshot streamed through a
// socket; `psync2`), whether it wants the snapshot only (`rdb-only 1`, redis-cli --rdb and
// --functions-rdb) and which parts of the snapshot it wants (`rdb-filter-only`, e.g.
// `functions`: the function libraries without the keys). The master keeps these per client id
// until the connection asks to sync, when they move into its ReplicaLink; a connection that
// closes first leaves nothing behind (OnClientClose). A filtered snapshot differs from the one
// every other replica gets, so it is made by a child of its own, always into a socket
// (master.cc's StartSyncChild); a snapshot-only replica is closed once its snapshot is sent
// and never receives the stream, as Redis does.
#include "replication/master_side.h"
#include "replication/replication.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {

MasterSide::HandshakeInfo& MasterSide::Handshake(const Client& c) {
  for (auto& [id, hs] : handshakes_) {
    if (id == c.id) return hs;
  }
  handshakes_.push_back({c.id, HandshakeInfo{}});
  return handshakes_.back().second;
}

void MasterSide::SetListeningPort(Client& c, int port) { Handshake(c).listening_port = port; }

void MasterSide::SetAnnouncedIp(Client& c, std::string_view ip) { Handshake(c).ip.assign(ip); }

void MasterSide::AddCapa(Client& c, std::string_view capa) {
  HandshakeInfo& hs = Handshake(c);
  if (EqualsIgnoreCase(capa, "eof")) hs.capa_eof = true;
  if (EqualsIgnoreCase(capa, "psync2")) hs.capa_psync2 = true;
}

void MasterSide::SetRdbOnly(Client& c, bool on) { Handshake(c).rdb_only = on; }

void MasterSide::SetRdbExclude(Client& c, uint8_t exclude) { Handshake(c).rdb_exclude = exclude; }

void MasterSide::FinishRdbOnly(ReplicaLink& l) {
  // Its snapshot is queued (maybe not yet written): the connection closes once its output is
  // out. It stays out of the online replicas, so it never gets the stream nor counts for WAIT.
  repl_.server().log().Log(LogLevel::kNotice,
                           "RDB transfer completed, rdb only replica (%s) should be disconnected "
                           "asap",
                           Name(l).c_str());
  // No later snapshot's pipe feeds it while its output drains (a diskless one relays to the
  // links in send_bulk that take the pipe).
  l.diskless = false;
  l.client->set_flag(kClientCloseAfterReply, true);
  repl_.server().QueueOutput(l.client);
}

}  // namespace redistp
