// The server's TLS side: building the contexts from the tls-* parameters, and reading and
// writing a client whose Client::tls is set.
//
// A TLS client goes through the same Client, buffers and command path as a plain one; only
// the two ends differ. OnReadable and FlushClient test `c->tls` once and come here, so a
// plain connection pays one well-predicted branch and nothing else.
//
// The loop's events stay as they are for plain clients: the read event is always armed, the
// write event only while something waits on writability. TLS adds three such waits, each
// resumed by the event of the direction OpenSSL asked for:
//   * the handshake (WANT_READ: the read event; WANT_WRITE: the write event is armed);
//   * an SSL_read that must write (a key update): tls_read_wants_write, the write event;
//   * an SSL_write that must read: tls_write_wants_read, the read event (always armed).
// A read drains what OpenSSL decrypted ahead (Pending) before returning to the loop: those
// bytes are no longer announced by the socket, and a client that pipelined its last commands
// into one record would otherwise wait for a packet that never comes.
#include <event2/event.h>
#include <sys/uio.h>

#include <algorithm>
#include <cstring>

#include "server/server.h"

namespace redistp {
namespace {

constexpr size_t kTlsReadChunk = 16 * 1024;
constexpr size_t kTlsBigArgThreshold = 32 * 1024;
// Small reply pieces are packed into one record of at most this size (a TLS record holds
// 16 KB): one SSL_write per record instead of one per piece.
constexpr size_t kTlsWriteChunk = 16 * 1024;
constexpr int kTlsMaxIov = 64;

void ArmWrite(Client* c) {
  if (!c->write_armed) {
    event_add(c->write_ev.get(), nullptr);
    c->write_armed = true;
  }
}

}  // namespace

Status Server::ConfigureTls() {
  TlsSettings s;
  s.cert_file = config_.tls_cert_file;
  s.key_file = config_.tls_key_file;
  s.key_file_pass = config_.tls_key_file_pass;
  s.client_cert_file = config_.tls_client_cert_file;
  s.client_key_file = config_.tls_client_key_file;
  s.client_key_file_pass = config_.tls_client_key_file_pass;
  s.dh_params_file = config_.tls_dh_params_file;
  s.ca_cert_file = config_.tls_ca_cert_file;
  s.ca_cert_dir = config_.tls_ca_cert_dir;
  s.protocols = config_.tls_protocols;
  s.ciphers = config_.tls_ciphers;
  s.ciphersuites = config_.tls_ciphersuites;
  s.prefer_server_ciphers = config_.tls_prefer_server_ciphers;
  s.session_caching = config_.tls_session_caching;
  s.session_cache_size = config_.tls_session_cache_size;
  s.session_cache_timeout = config_.tls_session_cache_timeout;
  s.needs_ca = config_.tls_auth_clients != 0 || config_.tls_replication || config_.tls_cluster;
  return tls_ctx_.Configure(s);
}

void Server::OnReadableTls(Client* c) {
  TlsConn* t = c->tls.get();
  if (t->handshaking()) {
    int r = t->Handshake();
    if (r < 0) {
      log_.Log(LogLevel::kWarning, "Error accepting a client connection: %s", t->error().c_str());
      CloseClient(c, "TLS handshake failed");
      return;
    }
    if (r == 0) {
      if (t->want() == TlsConn::Want::kWrite) {
        ArmWrite(c);
      } else if (c->write_armed) {
        // Waiting on the read event now: a write event left armed would fire on every turn.
        event_del(c->write_ev.get());
        c->write_armed = false;
      }
      return;
    }
    // Done: the write event armed for the handshake is disarmed by the flush below when
    // there is nothing to write; the client's first bytes may already sit in OpenSSL.
    if (c->write_armed) FlushClientTls(c);
    if (c->closed) return;
  }
  if (c->tls_write_wants_read) {
    c->tls_write_wants_read = false;
    FlushClientTls(c);
    if (c->closed) return;
  }
  c->tls_read_wants_write = false;
  size_t total = 0;
  // Bounded: after the first read only what OpenSSL already decrypted is taken (at most one
  // record), never the socket again.
  for (;;) {
    size_t want = kTlsReadChunk;
    size_t missing = c->parser.bulk_bytes_missing(c->query.Readable());
    const bool big = missing >= kTlsBigArgThreshold;
    if (big) want = missing;
    if (total > 0) want = std::max<size_t>(t->Pending(), 1);
    if (big) {
      c->query.ReserveExact(want);
    } else {
      c->query.Reserve(want);
    }
    ssize_t n = t->Read(c->query.WritePtr(), want);
    if (n == 0) {
      CloseClient(c, "Client closed connection");
      return;
    }
    if (n < 0) {
      if (t->want() == TlsConn::Want::kNothing) {
        log_.Log(LogLevel::kVerbose, "Reading from client: %s", t->error().c_str());
        CloseClient(c, "Reading from client");
        return;
      }
      if (t->want() == TlsConn::Want::kWrite) {
        c->tls_read_wants_write = true;
        ArmWrite(c);
      }
      break;
    }
    c->query.Produced(static_cast<size_t>(n));
    total += static_cast<size_t>(n);
    if (t->Pending() == 0) break;
  }
  if (total > 0) AfterRead(c, total);
}

void Server::FlushClientTls(Client* c) {
  TlsConn* t = c->tls.get();
  if (t->handshaking()) {
    // Nothing can be written before the handshake; the handshake's own wait owns the event.
    if (c->out.Readable() > 0) ArmWrite(c);
    return;
  }
  char pack[kTlsWriteChunk];
  while (c->out.Readable() > 0) {
    iovec iov[kTlsMaxIov];
    int cnt = c->out.Gather(iov, kTlsMaxIov);
    const void* data = iov[0].iov_base;
    size_t len = iov[0].iov_len;
    if (cnt > 1 && len < kTlsWriteChunk) {
      // Pack the leading pieces. A retry after WANT_WRITE packs the same bytes again (nothing
      // was consumed), at least as many as before, which is what OpenSSL requires.
      len = 0;
      for (int i = 0; i < cnt && len < kTlsWriteChunk; ++i) {
        size_t take = std::min(iov[i].iov_len, kTlsWriteChunk - len);
        std::memcpy(pack + len, iov[i].iov_base, take);
        len += take;
      }
      data = pack;
    }
    ssize_t n = t->Write(data, len);
    if (n < 0) {
      if (t->want() == TlsConn::Want::kRead) {
        c->tls_write_wants_read = true;
        break;
      }
      if (t->want() == TlsConn::Want::kWrite) break;
      log_.Log(LogLevel::kVerbose, "Error writing to client: %s", t->error().c_str());
      CloseClient(c, "Error writing to client");
      return;
    }
    c->out.Consume(static_cast<size_t>(n));
    c->net_output_bytes += static_cast<uint64_t>(n);
    stats_.net_output_bytes += static_cast<uint64_t>(n);
  }
  if (c->tls_write_wants_read) {
    // The read event resumes this write (OnReadableTls); an armed write event would fire on
    // every turn until the peer's bytes arrive.
    if (c->write_armed) {
      event_del(c->write_ev.get());
      c->write_armed = false;
    }
    CheckOutputLimits(c);
    return;
  }
  AfterFlush(c);
}

}  // namespace redistp
