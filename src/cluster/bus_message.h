// The cluster bus wire format: Redis 7.0's node-to-node messages, byte for byte.
//
// Model. Every message on the bus (the TCP port at the client port + 10000, or cluster-port)
// is one frame: a fixed 2256-byte header followed by a body whose shape depends on the type.
// All integers are big-endian; names are 40 raw bytes (the hex node id, no terminator); IPs
// are 46-byte NUL-padded arrays. The header's first eight bytes are the signature "RCmb" and
// the frame's total length, so a reader learns how many bytes to wait for from them alone
// (BusFrameLength). Bodies:
//   PING, PONG, MEET   `count` gossip entries of 104 bytes each, then, when the header's
//                      mflags[0] carries the extension bit, `extensions` ping extensions
//                      (8-byte header: length including itself, type, padding; then data,
//                      8-byte aligned). 7.0 sends the hostname extension (type 0); later
//                      versions add human nodename (1), forgotten node (2), shard id (3),
//                      which are kept as opaque payloads here.
//   FAIL               the failing node's name.
//   PUBLISH(SHARD)     channel length, message length, then both byte strings.
//   UPDATE             a config epoch, a node name and that node's 2048-byte slot bitmap.
//   MODULE             module id, payload length, module message type, payload.
//   FAILOVER_AUTH_REQUEST, FAILOVER_AUTH_ACK, MFSTART   header only.
// Any other type keeps its body as raw bytes, so a reader can count and ignore it.
//
// The structs here are plain wire images with no tie to the cluster state: decoding a frame and
// encoding the result gives the same bytes back (the unit tests prove it on frames captured
// from Redis 7.0 nodes). DecodeBusMessage checks a frame's lengths the way a 7.0 node does
// before it trusts any field (total length against the type's expected length, extension
// lengths multiples of 8 within the frame), so a bad frame is an error value, never an
// out-of-bounds read. What the fields mean (epochs, flags, slots) is the gossip layer's business.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace redistp {

inline constexpr size_t kBusNameLen = 40;                // a node id: 40 hex characters
inline constexpr size_t kBusIpLen = 46;                  // INET6_ADDRSTRLEN
inline constexpr size_t kBusSlotBytes = 16384 / 8;       // one bit per hash slot
inline constexpr size_t kBusHeaderSize = 2256;           // every frame starts with this
inline constexpr size_t kBusGossipSize = 104;            // one gossip entry
inline constexpr size_t kBusPingExtHeaderSize = 8;       // length, type, padding
inline constexpr size_t kBusFailBodySize = kBusNameLen;  // FAIL's body
inline constexpr size_t kBusUpdateBodySize = 8 + kBusNameLen + kBusSlotBytes;
inline constexpr uint16_t kBusProtocolVersion = 1;
inline constexpr std::string_view kBusSignature = "RCmb";

// Message types, as numbered on the wire.
enum class BusType : uint16_t {
  kPing = 0,
  kPong = 1,
  kMeet = 2,
  kFail = 3,
  kPublish = 4,
  kFailoverAuthRequest = 5,
  kFailoverAuthAck = 6,
  kUpdate = 7,
  kMfStart = 8,
  kModule = 9,
  kPublishShard = 10,
};
inline constexpr uint16_t kBusTypeCount = 11;

// A type's name as CLUSTER INFO's cluster_stats_messages_<name>_sent/_received lines and the
// log spell it ("ping", "auth-req", "publishshard", ...); "unknown" past the known types.
std::string_view BusTypeName(uint16_t type);

// Node flags as carried in the header's and gossip entries' `flags`.
inline constexpr uint16_t kBusNodeMaster = 1 << 0;
inline constexpr uint16_t kBusNodeSlave = 1 << 1;
inline constexpr uint16_t kBusNodePfail = 1 << 2;
inline constexpr uint16_t kBusNodeFail = 1 << 3;
inline constexpr uint16_t kBusNodeMyself = 1 << 4;
inline constexpr uint16_t kBusNodeHandshake = 1 << 5;
inline constexpr uint16_t kBusNodeNoAddr = 1 << 6;
inline constexpr uint16_t kBusNodeMeet = 1 << 7;
inline constexpr uint16_t kBusNodeMigrateTo = 1 << 8;
inline constexpr uint16_t kBusNodeNoFailover = 1 << 9;

// Message flags in mflags[0].
inline constexpr uint8_t kBusMsgPaused = 1 << 0;    // a master paused for manual failover
inline constexpr uint8_t kBusMsgForceAck = 1 << 1;  // vote even though the master is up
inline constexpr uint8_t kBusMsgExtData = 1 << 2;   // ping extensions follow the gossip

// The header's `state` byte.
inline constexpr uint8_t kBusStateOk = 0;
inline constexpr uint8_t kBusStateFail = 1;

// Ping extension types.
inline constexpr uint16_t kBusExtHostname = 0;
inline constexpr uint16_t kBusExtHumanNodename = 1;  // 7.2
inline constexpr uint16_t kBusExtForgottenNode = 2;  // 7.2
inline constexpr uint16_t kBusExtShardId = 3;        // 7.2

using BusName = std::array<char, kBusNameLen>;
using BusIp = std::array<char, kBusIpLen>;
using BusSlots = std::array<uint8_t, kBusSlotBytes>;

// A name field from a 40-character id (shorter input is zero-padded, longer truncated), and the
// text of a NUL-padded ip field.
BusName MakeBusName(std::string_view id);
BusIp MakeBusIp(std::string_view ip);
inline std::string_view BusNameView(const BusName& n) { return {n.data(), n.size()}; }
std::string_view BusIpView(const BusIp& ip);  // up to the first NUL

// Slot bitmap access: slot s is bit (s & 7) of byte s >> 3, as Redis lays it out.
inline bool BusSlotIsSet(const BusSlots& slots, int slot) {
  return (slots[slot >> 3] >> (slot & 7)) & 1;
}
inline void BusSetSlot(BusSlots& slots, int slot) {
  slots[slot >> 3] |= static_cast<uint8_t>(1 << (slot & 7));
}

struct BusHeader {
  uint16_t ver = kBusProtocolVersion;
  uint16_t port = 0;  // the client port (the TLS one when TLS serves clients)
  uint16_t type = 0;  // a BusType, kept raw so unknown types survive
  // PING/PONG/MEET: the encoder writes gossip.size(). Others: written as given (0 from Redis).
  uint16_t count = 0;
  uint64_t current_epoch = 0;
  uint64_t config_epoch = 0;  // the sender's, or its master's when it is a replica
  uint64_t offset = 0;        // replication offset
  BusName sender{};
  BusSlots myslots{};  // the sender's slots, or its master's when it is a replica
  BusName slaveof{};   // the master's name, all zeros for a master
  BusIp myip{};        // the announced ip, or zeros: the receiver uses the peer address
  // Written as extensions.size() when the message carries extensions, as given otherwise.
  uint16_t extensions = 0;
  std::array<uint8_t, 30> notused1{};
  uint16_t pport = 0;  // the plaintext client port when `port` is TLS
  uint16_t cport = 0;  // the sender's bus port
  uint16_t flags = 0;  // kBusNode* of the sender
  uint8_t state = kBusStateOk;
  std::array<uint8_t, 3> mflags{};
};

struct BusGossip {
  BusName nodename{};
  uint32_t ping_sent = 0;      // seconds
  uint32_t pong_received = 0;  // seconds
  BusIp ip{};
  uint16_t port = 0;
  uint16_t cport = 0;
  uint16_t flags = 0;
  uint16_t pport = 0;
  uint16_t notused1 = 0;
};

// One ping extension. `data` is everything after the 8-byte extension header, padding included,
// so its size is a multiple of 8.
struct BusPingExt {
  uint16_t type = 0;
  uint16_t unused = 0;
  std::string data;
};

// The hostname extension for `hostname` (NUL-terminated, zero-padded to 8 bytes), and the
// hostname a hostname extension carries (up to its first NUL).
BusPingExt MakeBusHostnameExt(std::string_view hostname);
std::string_view BusHostnameOf(const BusPingExt& ext);

// The forgotten-node extension (7.2): a node name and a TTL in seconds. Parse fails on a
// payload of the wrong size.
struct BusForgottenNode {
  BusName name{};
  uint64_t ttl = 0;
};
BusPingExt MakeBusForgottenNodeExt(const BusForgottenNode& f);
Result<BusForgottenNode> ParseBusForgottenNodeExt(const BusPingExt& ext);

struct BusMessage {
  BusHeader hdr;
  // PING, PONG, MEET.
  std::vector<BusGossip> gossip;
  std::vector<BusPingExt> exts;
  // FAIL.
  BusName fail_node{};
  // PUBLISH, PUBLISHSHARD.
  std::string channel;
  std::string message;
  // UPDATE.
  uint64_t update_config_epoch = 0;
  BusName update_node{};
  BusSlots update_slots{};
  // MODULE.
  uint64_t module_id = 0;
  uint8_t module_type = 0;
  std::string module_payload;
  // Any type this codec does not know: the body as received.
  std::string raw_body;

  BusType type() const { return static_cast<BusType>(hdr.type); }
};

// True for PING, PONG and MEET: the types that carry gossip and extensions.
inline bool BusCarriesGossip(uint16_t type) {
  return type == static_cast<uint16_t>(BusType::kPing) ||
         type == static_cast<uint16_t>(BusType::kPong) ||
         type == static_cast<uint16_t>(BusType::kMeet);
}

// From the first 8 bytes of a frame: its total length. An error when the signature is wrong or
// the length is below a header's (the link must be dropped: the stream cannot be resynced).
Result<uint32_t> BusFrameLength(std::string_view first8);

// Decodes one whole frame (exactly its total length). Errors: a bad signature, a length field
// different from the frame's size, a size different from what the type's fields imply, or a
// malformed extension. A version other than 1 decodes (the caller ignores such a frame).
// What a 7.0 node does, measured: a frame whose header is bad (BusFrameLength fails) closes the
// link; a frame that fails the per-type checks is logged and skipped, the link stays up and the
// next frame is processed. The link layer does the same with this function's errors.
Result<BusMessage> DecodeBusMessage(std::string_view frame);

// Encodes `m`, computing the total length (and, for PING/PONG/MEET, count and extensions from
// the vectors; the extension bit of mflags[0] is set when there are extensions). Appends to *out.
void EncodeBusMessage(const BusMessage& m, std::string* out);
std::string EncodeBusMessage(const BusMessage& m);

// The byte size EncodeBusMessage will produce for `m`.
size_t BusEncodedSize(const BusMessage& m);

}  // namespace redistp
