// util/tls: the contexts' configuration errors (Redis's log lines), a failed reconfiguration
// keeping the old contexts, and a TlsConn pair over a non-blocking socketpair: the handshake
// driven step by step, a megabyte across in partial writes, and reads that drain Pending().
// Certificates are made with the openssl command in a temporary directory.
#include "util/tls.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace redistp {
namespace {

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/redistp-tls-test.XXXXXX";
    const char* d = mkdtemp(tmpl);
    ASSERT_NE(d, nullptr);
    dir_ = d;
    const std::string q = "cd " + dir_ + " && ";
    const std::string cmd =
        q + "openssl genrsa -out ca.key 2048 2>/dev/null && " +
        "openssl req -x509 -new -nodes -key ca.key -days 2 -subj /CN=ca -out ca.crt 2>/dev/null "
        "&& " +
        "openssl genrsa -out s.key 2048 2>/dev/null && " +
        "openssl req -new -key s.key -subj /CN=s -out s.csr 2>/dev/null && " +
        "openssl x509 -req -in s.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 " +
        "-out s.crt 2>/dev/null && openssl genrsa -out other.key 2048 2>/dev/null";
    available_ = std::system(cmd.c_str()) == 0;
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) (void)std::system(("rm -rf " + dir_).c_str());
  }
  void SetUp() override {
    if (!available_) GTEST_SKIP() << "the openssl command is not available";
  }

  TlsSettings Good() const {
    TlsSettings s;
    s.cert_file = dir_ + "/s.crt";
    s.key_file = dir_ + "/s.key";
    s.ca_cert_file = dir_ + "/ca.crt";
    return s;
  }

  static std::string dir_;
  static bool available_;
};

std::string TlsTest::dir_;
bool TlsTest::available_ = false;

TEST_F(TlsTest, ConfigurationErrorsAreRedisLogLines) {
  TlsContext ctx;
  TlsSettings s;
  EXPECT_EQ(ctx.Configure(s).message(), "No tls-cert-file configured!");
  s.cert_file = dir_ + "/s.crt";
  EXPECT_EQ(ctx.Configure(s).message(), "No tls-key-file configured!");
  s.key_file = dir_ + "/s.key";
  EXPECT_EQ(ctx.Configure(s).message(),
            "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
            "tls-replication or tls-auth-clients are enabled!");
  s.needs_ca = false;
  EXPECT_TRUE(ctx.Configure(s).ok());

  s = Good();
  s.protocols = "TLSv1.2 SSLv3";
  EXPECT_EQ(ctx.Configure(s).message(),
            "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', "
            "'TLSv1.2' and 'TLSv1.3'.");
  s = Good();
  s.cert_file = "/nonexistent/x.crt";
  EXPECT_EQ(ctx.Configure(s).message(),
            "Failed to load certificate: /nonexistent/x.crt: error:80000002:system "
            "library::No such file or directory");
  s = Good();
  s.key_file = dir_ + "/other.key";
  EXPECT_EQ(ctx.Configure(s).message().rfind("Failed to load private key: " + s.key_file, 0), 0u);
  s = Good();
  s.ciphers = "NO-SUCH-CIPHER";
  EXPECT_EQ(ctx.Configure(s).message(), "Failed to configure ciphers: NO-SUCH-CIPHER");
  s = Good();
  s.ciphersuites = "NOPE";
  EXPECT_EQ(ctx.Configure(s).message(), "Failed to configure ciphersuites: NOPE");
  s = Good();
  s.dh_params_file = "/nonexistent/dh.pem";
  EXPECT_EQ(ctx.Configure(s).message(),
            "Failed to load /nonexistent/dh.pem: No such file or directory");
}

TEST_F(TlsTest, AFailedReconfigurationKeepsTheContextsInService) {
  TlsContext ctx;
  ASSERT_TRUE(ctx.Configure(Good()).ok());
  SSL_CTX* server = ctx.server_ctx();
  SSL_CTX* client = ctx.client_ctx();
  TlsSettings bad = Good();
  bad.cert_file = dir_ + "/missing.crt";
  EXPECT_FALSE(ctx.Configure(bad).ok());
  EXPECT_EQ(ctx.server_ctx(), server);
  EXPECT_EQ(ctx.client_ctx(), client);
  ASSERT_TRUE(ctx.Configure(Good()).ok());
  EXPECT_TRUE(ctx.ready());
}

// Waits (bounded) until `fd` is ready for what `t` wants.
void WaitFor(const TlsConn& t, int fd) {
  short ev = t.want() == TlsConn::Want::kWrite ? POLLOUT : POLLIN;
  pollfd p{fd, ev, 0};
  (void)poll(&p, 1, 50);
}

TEST_F(TlsTest, HandshakeAndAMegabyteOverNonBlockingSockets) {
  TlsContext ctx;
  ASSERT_TRUE(ctx.Configure(Good()).ok());
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
  auto server = TlsConn::Accept(ctx.server_ctx(), sv[0], TlsPeerAuth::kRequire);
  auto client = TlsConn::Connect(ctx.client_ctx(), sv[1]);
  ASSERT_NE(server, nullptr);
  ASSERT_NE(client, nullptr);
  // Alternate the two sides; each step either progresses or says what it waits on.
  for (int i = 0; i < 200 && (server->handshaking() || client->handshaking()); ++i) {
    if (client->handshaking()) {
      ASSERT_GE(client->Handshake(), 0) << client->error();
    }
    if (server->handshaking()) {
      ASSERT_GE(server->Handshake(), 0) << server->error();
    }
  }
  ASSERT_FALSE(server->handshaking());
  ASSERT_FALSE(client->handshaking());

  std::string sent(1 << 20, '\0');
  for (size_t i = 0; i < sent.size(); ++i) sent[i] = static_cast<char>('a' + i % 26);
  std::string got;
  size_t off = 0;
  char buf[4096];
  for (int rounds = 0; rounds < 100000 && got.size() < sent.size(); ++rounds) {
    if (off < sent.size()) {
      ssize_t n = server->Write(sent.data() + off, sent.size() - off);
      if (n > 0) {
        off += static_cast<size_t>(n);
      } else {
        ASSERT_NE(server->want(), TlsConn::Want::kNothing) << server->error();
      }
    }
    // Read until OpenSSL holds nothing more: the socket would not announce those bytes.
    for (;;) {
      ssize_t n = client->Read(buf, sizeof buf);
      if (n <= 0) {
        ASSERT_NE(n, 0);
        ASSERT_NE(client->want(), TlsConn::Want::kNothing) << client->error();
        break;
      }
      got.append(buf, static_cast<size_t>(n));
      if (client->Pending() == 0) break;
    }
    if (off == sent.size() && got.size() < sent.size()) WaitFor(*client, sv[1]);
  }
  EXPECT_EQ(got.size(), sent.size());
  EXPECT_TRUE(got == sent);

  // A close_notify reads as the end of the stream.
  server->Shutdown();
  ssize_t n = -1;
  for (int i = 0; i < 100 && n != 0; ++i) {
    n = client->Read(buf, sizeof buf);
    if (n < 0) WaitFor(*client, sv[1]);
  }
  EXPECT_EQ(n, 0);
  server.reset();
  client.reset();
  close(sv[0]);
  close(sv[1]);
}

}  // namespace
}  // namespace redistp
