// libFuzzer harness for the RDB loader: any bytes as an RDB image, loaded into a real Server.
//
// Model. One Server lives for the whole run (built like main.cc builds it, listening only on a
// private unix socket). Each input is loaded with LoadRdb as DEBUG RELOAD MERGE would (so a
// duplicate key is no early exit), then, when it loaded, written back with RdbImage (every
// loaded value is walked and serialized, so a value the loader accepted but left inconsistent
// shows up there) and that image must load again into the emptied server: what we write, we
// read. Every database and the function libraries are emptied after each input, so inputs do
// not depend on each other.
//
// Seeds (tests/fuzz/make-corpus.py) are the hand-built files of tests/assets/rdb-corpus and
// small good images, so the fuzzer starts from valid structure. Checksums are not verified
// (rdbchecksum no): a flipped byte then reaches the value decoders instead of stopping at the
// trailer.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "commands/register.h"
#include "persistence/persistence.h"
#include "persistence/rdb_load.h"
#include "persistence/rdb_save.h"
#include "server/config.h"
#include "server/server.h"

namespace {

redistp::Server* g_server = nullptr;
std::string g_socket;

void RemoveSocket() { unlink(g_socket.c_str()); }

void Init() {
  redistp::Config config;
  config.port = 0;
  g_socket = "/tmp/redistp-rdb-fuzz-" + std::to_string(getpid()) + ".sock";
  config.unixsocket = g_socket;
  config.loglevel = redistp::LogVerbosity::kWarning;
  config.rdbchecksum = false;
  config.proto_max_bulk_len = 1LL << 20;
  g_server = new redistp::Server(std::move(config));
  redistp::RegisterCommands(g_server->commands());
  redistp::Status s = g_server->Init();
  if (!s.ok()) {
    std::fprintf(stderr, "rdb_load_fuzz: Init: %s\n", s.message().c_str());
    std::abort();
  }
  std::atexit(RemoveSocket);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (g_server == nullptr) Init();
  redistp::Server& server = *g_server;
  redistp::Persistence& persistence = redistp::Persistence::Of(server);
  redistp::RdbLoadOptions options;
  options.allow_duplicates = true;
  redistp::RdbLoadInfo info;
  std::string_view image(reinterpret_cast<const char*>(data), size);
  redistp::Status s = redistp::LoadRdb(server, image, options, &info);
  if (s.ok()) {
    std::string again = redistp::RdbImage(server, redistp::RdbSaveOptions{});
    persistence.EmptyData(true);
    redistp::RdbLoadInfo info2;
    redistp::Status s2 = redistp::LoadRdb(server, again, options, &info2);
    if (!s2.ok()) {
      std::fprintf(stderr, "rdb_load_fuzz: our own image of a loaded file does not load: %s\n",
                   s2.message().c_str());
      std::abort();
    }
  }
  persistence.EmptyData(true);
  return 0;
}
