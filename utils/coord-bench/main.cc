// coord-bench: the load tool behind utils/bench-coordination.sh.
//
// Five subcommands, each a self-contained measurement that prints `result ...` lines on stdout
// (stats.h) and explains failures on stderr:
//   fanout   notification latency from one writer to many watchers (fanout.h);
//   publish  PUBLISH throughput to many subscribers of one channel (publish.h);
//   handoff  lock hand-off time after the holder's connection dies (handoff.h);
//   hold     register many watches/subscriptions/patterns and keep them open (hold.h);
//   locks    contended-lock throughput, fairness and wasted attempts (locks.h).
// It speaks RESP2/RESP3 over plain loopback sockets (no client library: hiredis 0.14 knows no
// RESP3 push frames) and never connects anywhere but 127.0.0.1.
#include <cstdio>
#include <cstring>

#include "fanout.h"
#include "handoff.h"
#include "hold.h"
#include "locks.h"
#include "options.h"
#include "publish.h"

namespace {

constexpr const char* kUsage =
    "usage: coord-bench fanout  --target NAME=PORT:MODE ... [--watchers N] [--changes N]\n"
    "                           [--pause-us N] [--change-timeout-ms N] [--max-seconds N]\n"
    "                           [--key K]      MODE: watchex3 | watchex2 | keyspace |\n"
    "                           watchex-channel | publish\n"
    "       coord-bench publish --target NAME=PORT:resp2 ... [--subscribers N] [--messages N]\n"
    "                           [--pipeline P] [--payload-bytes N] [--window N]\n"
    "                           [--max-seconds N] [--channel C]\n"
    "       coord-bench handoff --target NAME=PORT:MODE ... [--runs N] [--ttl-ms N]\n"
    "                           [--close rst|fin] [--max-seconds N] [--key K]\n"
    "                           MODE: settp-watchex | bsettp | redis-ttl (each optionally\n"
    "                           @rst or @fin) | ping\n"
    "       coord-bench hold    --port P [--mode watchex|subscribe|psubscribe] [--conns N]\n"
    "                           [--keys N] [--layout shared|distinct] [--batch N] [--prefix P]\n"
    "                           [--max-seconds N] [--name NAME]\n"
    "Results: one `result name=... kind=... key=value ...` line per target on stdout.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  coordbench::Options options(argc, argv, 2);
  if (strcmp(argv[1], "fanout") == 0) return coordbench::RunFanout(options);
  if (strcmp(argv[1], "handoff") == 0) return coordbench::RunHandoff(options);
  if (strcmp(argv[1], "publish") == 0) return coordbench::RunPublish(options);
  if (strcmp(argv[1], "hold") == 0) return coordbench::RunHold(options);
  if (strcmp(argv[1], "locks") == 0) return coordbench::RunLocks(options);
  fprintf(stderr, "coord-bench: unknown subcommand '%s'\n%s", argv[1], kUsage);
  return 2;
}
