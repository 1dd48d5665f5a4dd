// TLS over OpenSSL (tls.h). Contexts are rebuilt whole on every Configure so a failure never
// leaves half a configuration in service; connections hold their own reference to the
// context they were made from.
#include "util/tls.h"

#include <openssl/decoder.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <strings.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace redistp {
namespace {

// The first error OpenSSL queued, formatted as OpenSSL prints it ("error:0A0000C7:SSL
// routines::peer did not return a certificate"), and the queue emptied.
std::string TakeSslError() {
  unsigned long e = ERR_peek_error();
  char buf[256] = {};
  if (e != 0) ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

// The password callback: the text in `userdata`, truncated to what OpenSSL offers room for.
int PasswordCallback(char* buf, int size, int /*rwflag*/, void* userdata) {
  const auto* pass = static_cast<const std::string*>(userdata);
  if (pass == nullptr || size <= 0) return 0;
  int n = static_cast<int>(std::min<size_t>(pass->size(), static_cast<size_t>(size)));
  std::memcpy(buf, pass->data(), static_cast<size_t>(n));
  return n;
}

// tls-protocols as SSL_OP_NO_* bits: every version not listed is disabled. Empty means
// TLSv1.2 and TLSv1.3 (Redis's default). Returns false on a word that names no version.
bool ProtocolOptions(const std::string& text, long* options) {
  bool v10 = false, v11 = false, v12 = false, v13 = false;
  if (text.empty()) {
    v12 = v13 = true;
  } else {
    size_t i = 0;
    while (i < text.size()) {
      size_t j = text.find(' ', i);
      if (j == std::string::npos) j = text.size();
      std::string w = text.substr(i, j - i);
      i = j + 1;
      if (w.empty()) continue;
      if (strcasecmp(w.c_str(), "tlsv1") == 0) {
        v10 = true;
      } else if (strcasecmp(w.c_str(), "tlsv1.1") == 0) {
        v11 = true;
      } else if (strcasecmp(w.c_str(), "tlsv1.2") == 0) {
        v12 = true;
      } else if (strcasecmp(w.c_str(), "tlsv1.3") == 0) {
        v13 = true;
      } else {
        return false;
      }
    }
    if (!v10 && !v11 && !v12 && !v13) return false;
  }
  long o = 0;
  if (!v10) o |= SSL_OP_NO_TLSv1;
  if (!v11) o |= SSL_OP_NO_TLSv1_1;
  if (!v12) o |= SSL_OP_NO_TLSv1_2;
  if (!v13) o |= SSL_OP_NO_TLSv1_3;
  *options = o;
  return true;
}

// Loads DH parameters from a PEM file into `ctx`; an error names the file as Redis does.
Status LoadDhParams(SSL_CTX* ctx, const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) {
    return Status::Error("Failed to load " + path + ": " + std::strerror(errno));
  }
  EVP_PKEY* pkey = nullptr;
  OSSL_DECODER_CTX* dctx = OSSL_DECODER_CTX_new_for_pkey(
      &pkey, "PEM", nullptr, "DH", OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS, nullptr, nullptr);
  bool ok = dctx != nullptr && OSSL_DECODER_from_fp(dctx, f) == 1 && pkey != nullptr;
  OSSL_DECODER_CTX_free(dctx);
  std::fclose(f);
  if (!ok) {
    std::string why = TakeSslError();
    EVP_PKEY_free(pkey);
    return Status::Error("Failed to load DH params file: " + path + ": " + why);
  }
  if (SSL_CTX_set0_tmp_dh_pkey(ctx, pkey) != 1) {
    std::string why = TakeSslError();
    EVP_PKEY_free(pkey);
    return Status::Error("Failed to load DH params file: " + path + ": " + why);
  }
  return Status::Ok();
}

// One context: the options every connection shares, then the certificate and key (`cert`,
// `key` with `pass`), the CA and the cipher lists. `server` adds what only an accepting side
// has (session cache, DH parameters, cipher preference). The password string must outlive
// the load only: OpenSSL asks for it while reading the key.
Status BuildContext(const TlsSettings& s, bool server, const std::string& cert,
                    const std::string& key, const std::string& pass, SSL_CTX** out) {
  SSL_CTX* ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
  if (ctx == nullptr) return Status::Error("Failed to create SSL context: " + TakeSslError());
  auto fail = [ctx](std::string msg) {
    SSL_CTX_free(ctx);
    return Status::Error(std::move(msg));
  };
  long protocols = 0;
  if (!ProtocolOptions(s.protocols, &protocols)) {
    return fail(
        "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and "
        "'TLSv1.3'.");
  }
  SSL_CTX_set_options(ctx, SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_COMPRESSION |
                               SSL_OP_NO_RENEGOTIATION | static_cast<uint64_t>(protocols));
  if (server && s.prefer_server_ciphers) SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
  // Partial writes: a reply larger than the socket takes goes out in pieces; the retry may
  // come from a different address once the reply buffer moved.
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  if (server) {
    if (s.session_caching) {
      static const unsigned char kSid[] = "redis-tp";
      SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
      SSL_CTX_sess_set_cache_size(ctx, s.session_cache_size);
      SSL_CTX_set_timeout(ctx, s.session_cache_timeout);
      SSL_CTX_set_session_id_context(ctx, kSid, sizeof kSid - 1);
    } else {
      SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    }
  }
  std::string pass_copy = pass;
  SSL_CTX_set_default_passwd_cb(ctx, PasswordCallback);
  SSL_CTX_set_default_passwd_cb_userdata(ctx, pass.empty() ? nullptr : &pass_copy);
  if (SSL_CTX_use_certificate_chain_file(ctx, cert.c_str()) <= 0) {
    return fail("Failed to load certificate: " + cert + ": " + TakeSslError());
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM) <= 0) {
    return fail("Failed to load private key: " + key + ": " + TakeSslError());
  }
  SSL_CTX_set_default_passwd_cb_userdata(ctx, nullptr);
  if ((!s.ca_cert_file.empty() || !s.ca_cert_dir.empty()) &&
      SSL_CTX_load_verify_locations(ctx, s.ca_cert_file.empty() ? nullptr : s.ca_cert_file.c_str(),
                                    s.ca_cert_dir.empty() ? nullptr : s.ca_cert_dir.c_str()) <= 0) {
    return fail("Failed to configure CA certificate(s) file/directory: " + TakeSslError());
  }
  if (server) {
    if (!s.dh_params_file.empty()) {
      Status d = LoadDhParams(ctx, s.dh_params_file);
      if (!d.ok()) return fail(d.message());
    } else {
      SSL_CTX_set_dh_auto(ctx, 1);
    }
  }
  if (!s.ciphers.empty() && SSL_CTX_set_cipher_list(ctx, s.ciphers.c_str()) == 0) {
    ERR_clear_error();
    return fail("Failed to configure ciphers: " + s.ciphers);
  }
  if (!s.ciphersuites.empty() && SSL_CTX_set_ciphersuites(ctx, s.ciphersuites.c_str()) == 0) {
    ERR_clear_error();
    return fail("Failed to configure ciphersuites: " + s.ciphersuites);
  }
  *out = ctx;
  return Status::Ok();
}

}  // namespace

TlsContext::~TlsContext() {
  SSL_CTX_free(server_);
  SSL_CTX_free(client_);
}

Status TlsContext::Configure(const TlsSettings& s) {
  if (s.cert_file.empty()) return Status::Error("No tls-cert-file configured!");
  if (s.key_file.empty()) return Status::Error("No tls-key-file configured!");
  if (s.needs_ca && s.ca_cert_file.empty() && s.ca_cert_dir.empty()) {
    return Status::Error(
        "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
        "tls-replication or tls-auth-clients are enabled!");
  }
  SSL_CTX* server = nullptr;
  SSL_CTX* client = nullptr;
  Status st = BuildContext(s, true, s.cert_file, s.key_file, s.key_file_pass, &server);
  if (!st.ok()) return st;
  // The outgoing side presents the client certificate when one is configured, else the
  // server's own (Redis's rule).
  const bool own = !s.client_cert_file.empty() && !s.client_key_file.empty();
  st = BuildContext(s, false, own ? s.client_cert_file : s.cert_file,
                    own ? s.client_key_file : s.key_file,
                    own ? s.client_key_file_pass : s.key_file_pass, &client);
  if (!st.ok()) {
    SSL_CTX_free(server);
    return st;
  }
  SSL_CTX_free(server_);
  SSL_CTX_free(client_);
  server_ = server;
  client_ = client;
  return Status::Ok();
}

std::unique_ptr<TlsConn> TlsConn::Accept(SSL_CTX* ctx, int fd, TlsPeerAuth auth) {
  SSL* ssl = SSL_new(ctx);
  if (ssl == nullptr) return nullptr;
  switch (auth) {
    case TlsPeerAuth::kNone:
      SSL_set_verify(ssl, SSL_VERIFY_NONE, nullptr);
      break;
    case TlsPeerAuth::kOptional:
      SSL_set_verify(ssl, SSL_VERIFY_PEER, nullptr);
      break;
    case TlsPeerAuth::kRequire:
      SSL_set_verify(ssl, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
      break;
  }
  SSL_set_fd(ssl, fd);
  SSL_set_accept_state(ssl);
  return std::unique_ptr<TlsConn>(new TlsConn(ssl));
}

std::unique_ptr<TlsConn> TlsConn::Connect(SSL_CTX* ctx, int fd) {
  SSL* ssl = SSL_new(ctx);
  if (ssl == nullptr) return nullptr;
  SSL_set_fd(ssl, fd);
  SSL_set_connect_state(ssl);
  return std::unique_ptr<TlsConn>(new TlsConn(ssl));
}

TlsConn::~TlsConn() { SSL_free(ssl_); }

int TlsConn::Fail(int ret) {
  int e = SSL_get_error(ssl_, ret);
  want_ = Want::kNothing;
  switch (e) {
    case SSL_ERROR_WANT_READ:
      want_ = Want::kRead;
      return -1;
    case SSL_ERROR_WANT_WRITE:
      want_ = Want::kWrite;
      return -1;
    case SSL_ERROR_SYSCALL:
      error_ = errno != 0 ? std::strerror(errno) : "Connection lost";
      if (ERR_peek_error() != 0) error_ = TakeSslError();
      return -1;
    default:
      error_ = TakeSslError();
      if (error_.empty()) error_ = "SSL error " + std::to_string(e);
      return -1;
  }
}

int TlsConn::Handshake() {
  ERR_clear_error();
  errno = 0;
  int r = SSL_do_handshake(ssl_);
  if (r == 1) {
    handshaking_ = false;
    want_ = Want::kNothing;
    return 1;
  }
  Fail(r);
  return want_ == Want::kNothing ? -1 : 0;
}

ssize_t TlsConn::Read(void* buf, size_t n) {
  ERR_clear_error();
  errno = 0;
  size_t got = 0;
  int r = SSL_read_ex(ssl_, buf, n, &got);
  if (r == 1) {
    want_ = Want::kNothing;
    return static_cast<ssize_t>(got);
  }
  if (SSL_get_error(ssl_, r) == SSL_ERROR_ZERO_RETURN) return 0;
  return Fail(r);
}

ssize_t TlsConn::Write(const void* buf, size_t n) {
  ERR_clear_error();
  errno = 0;
  size_t put = 0;
  int r = SSL_write_ex(ssl_, buf, n, &put);
  if (r == 1) {
    want_ = Want::kNothing;
    return static_cast<ssize_t>(put);
  }
  return Fail(r);
}

size_t TlsConn::Pending() const { return static_cast<size_t>(SSL_pending(ssl_)); }

void TlsConn::Shutdown() {
  if (handshaking_) return;
  ERR_clear_error();
  (void)SSL_shutdown(ssl_);
  ERR_clear_error();
}

void TlsConnDelete::operator()(TlsConn* t) const { delete t; }

}  // namespace redistp
