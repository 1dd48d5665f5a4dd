// TLS over OpenSSL: the contexts a server builds from its tls-* parameters, and one encrypted
// connection over a non-blocking socket.
//
// Model. A TlsContext holds two SSL_CTX: the server one (accepted connections) and the client
// one (this server connecting out: a replica's link to its master). Configure() builds both
// from a TlsSettings and swaps them in only when everything loaded, so a bad certificate given
// to CONFIG SET leaves the old contexts serving (connections made before keep their own
// reference, OpenSSL counts them). Error texts are the lines Redis 7.0 logs.
//
// A TlsConn wraps one SSL over a socket the caller owns (the caller closes the fd). Nothing
// here blocks or waits: every call either progresses or reports what it waits for (want()),
// and the caller maps that onto its event loop: kRead → wait for the fd to be readable, kWrite
// → writable. Two things differ from a plain socket and the caller must honour them:
//   * decrypted bytes can sit inside OpenSSL (Pending()) while the fd is not readable; a reader
//     drains them before it goes back to the loop, or they wait for the next packet;
//   * a write that returned kWrite must be retried with at least the same bytes (partial
//     writes and moving buffers are enabled, so the bytes may live elsewhere).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <string>

#include "util/status.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace redistp {

// The tls-* parameters, as text (empty = not set), the way the configuration holds them.
struct TlsSettings {
  std::string cert_file, key_file, key_file_pass;
  std::string client_cert_file, client_key_file, client_key_file_pass;
  std::string dh_params_file, ca_cert_file, ca_cert_dir;
  std::string protocols, ciphers, ciphersuites;
  bool prefer_server_ciphers = false;
  bool session_caching = true;
  long session_cache_size = 20480;
  long session_cache_timeout = 300;
  // tls-auth-clients, tls-replication or tls-cluster on: a CA is then required.
  bool needs_ca = true;
};

// How an accepted connection treats the client's certificate (tls-auth-clients).
enum class TlsPeerAuth { kNone, kRequire, kOptional };

class TlsContext {
 public:
  TlsContext() = default;
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // Builds new contexts from `s`. On success they replace the current ones; on failure the
  // current ones stay and the error is the line Redis logs ("Failed to load certificate: ...").
  Status Configure(const TlsSettings& s);
  bool ready() const { return server_ != nullptr; }
  SSL_CTX* server_ctx() const { return server_; }
  SSL_CTX* client_ctx() const { return client_; }

 private:
  SSL_CTX* server_ = nullptr;
  SSL_CTX* client_ = nullptr;
};

class TlsConn {
 public:
  enum class Want { kNothing, kRead, kWrite };

  // A connection over `fd` that will accept (server side) or connect (client side) once
  // Handshake() is driven to completion. `ctx` must be ready.
  static std::unique_ptr<TlsConn> Accept(SSL_CTX* ctx, int fd, TlsPeerAuth auth);
  static std::unique_ptr<TlsConn> Connect(SSL_CTX* ctx, int fd);
  ~TlsConn();
  TlsConn(const TlsConn&) = delete;
  TlsConn& operator=(const TlsConn&) = delete;

  bool handshaking() const { return handshaking_; }
  // One step of the handshake: 1 done, 0 not yet (want() says on what), -1 failed (error()).
  int Handshake();
  // Up to `n` decrypted bytes: > 0 bytes read; 0 the peer closed the connection; -1 nothing
  // now (want() is kRead or kWrite) or failed (want() is kNothing; error() says why).
  ssize_t Read(void* buf, size_t n);
  // Writes up to `n` bytes: > 0 written (maybe fewer than n); -1 as Read.
  ssize_t Write(const void* buf, size_t n);
  // Decrypted bytes OpenSSL holds that the fd's readiness no longer announces.
  size_t Pending() const;
  // Sends close_notify once, without waiting for the peer's (best effort, before close).
  void Shutdown();

  Want want() const { return want_; }
  const std::string& error() const { return error_; }

 private:
  explicit TlsConn(SSL* ssl) : ssl_(ssl) {}
  // Maps a failed SSL call's result onto want_/error_; returns -1.
  int Fail(int ret);

  SSL* ssl_;
  bool handshaking_ = true;
  Want want_ = Want::kNothing;
  std::string error_;
};

// The deleter Client and the replication link use, so their headers need not see TlsConn.
struct TlsConnDelete {
  void operator()(TlsConn* t) const;
};
using TlsConnPtr = std::unique_ptr<TlsConn, TlsConnDelete>;

}  // namespace redistp
