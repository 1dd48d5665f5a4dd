// libFuzzer harness for RequestParser (src/protocol/request_parser).
//
// The input is a stream of bytes a client might send. The harness checks two properties that
// must hold for any bytes, beyond "no crash, no sanitizer report":
//  1. Every result stays inside the buffer: consumed() never exceeds the bytes given, every
//     argument view lies inside them, bulk_bytes_missing() never asks for bytes past a declared
//     bulk, and parsed_bytes() never exceeds the bytes given.
//  2. Resuming is invisible: parsing the stream delivered in chunks (sizes taken from the first
//     input byte, the way reads split a connection's bytes) gives exactly the same commands,
//     empty requests and error text as parsing it delivered whole. This is what the server
//     relies on when it resumes a half-received command at the offsets it remembered.
// A violated property aborts (libFuzzer reports it as a crash with the input saved).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/request_parser.h"

namespace {

using redistp::ParserLimits;
using redistp::RequestParser;

// One parse outcome, in a form two runs can compare.
struct Event {
  RequestParser::Status status;
  std::vector<std::string> args;  // kCommand
  std::string error;              // kError
  bool operator==(const Event&) const = default;
};

[[noreturn]] void Violation(const char* what) {
  std::fprintf(stderr, "request_parser_fuzz: property violated: %s\n", what);
  std::abort();
}

// Checks the in-buffer invariants of a result obtained from `buf`.
void CheckBounds(const RequestParser& p, RequestParser::Status st, std::string_view buf) {
  if (p.parsed_bytes() > buf.size()) Violation("parsed_bytes beyond the buffer");
  if (st == RequestParser::Status::kCommand || st == RequestParser::Status::kEmpty) {
    if (p.consumed() == 0 || p.consumed() > buf.size()) Violation("consumed out of range");
  }
  if (st != RequestParser::Status::kCommand) return;
  if (p.args().empty()) Violation("a command without arguments");
  const char* lo = buf.data();
  const char* hi = buf.data() + buf.size();
  bool is_inline = !buf.empty() && buf[0] != '*';
  for (std::string_view a : p.args()) {
    // Inline arguments are unquoted copies held by the parser; multibulk ones are views.
    if (!is_inline && (a.data() < lo || a.data() + a.size() > hi)) {
      Violation("argument view outside the buffer");
    }
  }
}

// Feeds `stream` to a parser the way the server does: a growing query buffer from which each
// complete request is consumed. `chunk` bytes arrive per "read" (0 = everything at once).
// Stops at the first error, as the server closes the connection after it.
std::vector<Event> Run(std::string_view stream, size_t chunk, const ParserLimits& limits) {
  std::vector<Event> events;
  RequestParser parser;
  std::string query;
  size_t fed = 0;
  while (true) {
    size_t n = chunk == 0 ? stream.size() - fed : std::min(chunk, stream.size() - fed);
    query.append(stream.substr(fed, n));
    fed += n;
    while (!query.empty()) {
      RequestParser::Status st = parser.Parse(query, limits);
      CheckBounds(parser, st, query);
      if (st == RequestParser::Status::kNeedMore) {
        if (parser.bulk_bytes_missing(query.size()) > limits.max_bulk_len + 2 + query.size()) {
          Violation("bulk_bytes_missing beyond the declared bulk");
        }
        break;
      }
      Event e{st, {}, {}};
      if (st == RequestParser::Status::kError) {
        e.error = parser.error();
        events.push_back(std::move(e));
        return events;
      }
      if (st == RequestParser::Status::kCommand) {
        for (std::string_view a : parser.args()) e.args.emplace_back(a);
      }
      events.push_back(std::move(e));
      query.erase(0, parser.consumed());
      parser.Reset();
    }
    if (fed == stream.size()) return events;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  // First byte: chunk size for the split run (1..64) and whether the client is authenticated.
  size_t chunk = (data[0] & 0x3f) + 1;
  ParserLimits limits;
  limits.authenticated = (data[0] & 0x40) == 0;
  // A small proto-max-bulk-len so the fuzzer can reach the "too big" paths with short inputs.
  if (data[0] & 0x80) limits.max_bulk_len = 64;
  std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<Event> whole = Run(stream, 0, limits);
  std::vector<Event> split = Run(stream, chunk, limits);
  if (whole != split) Violation("chunked parse differs from whole parse");
  return 0;
}
