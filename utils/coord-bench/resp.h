// RESP frames as the load tool sees them: one parsed reply or push from a server.
//
// The tool talks to two kinds of servers: ours, which sends WATCHEX notifications as RESP3 push
// frames (`>3`) or, for RESP2 connections, as in-band 3-element arrays; and Redis, whose
// keyspace notifications reach a SUBSCRIBEd RESP2 connection as `message` arrays. The parser
// therefore reads every RESP2 and RESP3 type into one small tree (`Frame`), and IsPush() is the
// single place that decides whether a frame is an out-of-band notification or the reply to a
// command. A frame is parsed only once all of its bytes are present; an incomplete frame costs
// a rescan from its start when more bytes arrive, which is cheap for the short frames measured
// here (a reply of a few kilobytes at most).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace coordbench {

struct Frame {
  // The RESP type byte: '+' '-' ':' '$' '*' '>' '%' '~' '|' '_' '#' ',' '(' '=' '!'.
  char type = 0;
  // Simple strings, errors, integers, bulk strings and the other scalar types: the payload.
  std::string text;
  // A null bulk/array (RESP2 `$-1`, `*-1`) or RESP3 `_`.
  bool null = false;
  // Aggregates: the elements; maps and attributes store key, value, key, value ...
  std::vector<Frame> items;

  bool IsError() const { return type == '-' || type == '!'; }
  // Whether this is the integer reply `value`.
  bool IsInteger(long long value) const;
  // Whether this is a simple or bulk string equal to `value`.
  bool IsString(std::string_view value) const;
  // A one-line rendering for error messages, truncated to about 200 bytes.
  std::string Describe() const;
};

// Parses one frame from the start of `data`. Returns the number of bytes it occupies, 0 when
// the frame is not complete yet, or -1 when the bytes are not RESP (the stream is lost then).
long ParseFrame(std::string_view data, Frame* out);

// A notification rather than a reply: a RESP3 push frame, or (RESP2) an array whose first
// element is `watchex` (our in-band notification) or `message` (Redis pub/sub).
bool IsPush(const Frame& frame);

// The notification's kind: for `watchex <key> ADD|DEL` the last element; for a pub/sub
// `message <channel> <payload>` the payload (a keyspace event name such as `set`, `del`,
// `expired`). Empty when the frame is not such a 3-element notification.
std::string_view PushEvent(const Frame& frame);

// Encodes a command as a RESP array of bulk strings.
std::string EncodeCommand(const std::vector<std::string>& args);

}  // namespace coordbench
