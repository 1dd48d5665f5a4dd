// Fence floors on the cluster bus: how a slot's new owner learns the fencing counter of the
// node that served it, whether or not a key moves with the slot (docs/cluster.md, "Fencing
// tokens in a cluster").
//
// The promise (issue 26): the tokens of one key increase, whichever master served its slot when
// each was drawn. A master draws the tokens of its slots' keys from its own counter
// (watch/fence.h). A key moved by MIGRATE carries the source's counter in its TPADOPT; a slot
// moved with no key left in it carries nothing, and the source's counter may run far ahead of
// the target's (2^24 per restart, 2^32 per failover). So the source tells the target its floor
// over the bus whenever a slot leaves it (and the target asks for it when it takes one), and
// the target raises its own counter to it, durably; a target that knows the source speaks
// redis-tp draws no token for the slot's keys before the floor arrived (ClusterBus, "Waiting
// for a floor").
//
// Wire. A CLUSTERMSG_TYPE_MODULE frame (a full 2256-byte header, then module id, payload length,
// message type, payload), which a Redis 7.0 node counts (cluster_stats_messages_module_received)
// and hands to the cluster receivers of its modules: with no module of this id it drops the frame
// without a log line (measured, tests/unit/cluster/fence-floor.tcl). The module id is the eight
// ASCII bytes "redis-tp" read big-endian; a Redis module derives its id from a 9-character name
// and a version, so only a module that happens to encode to the same 64 bits would see these.
// Two types:
//   1 FLOOR    payload: the sender's floor, 8 bytes big-endian: an upper bound of every token it
//              ever handed out and of every token it can hand out before it reserves again
//              (max(counter, durable mark)).
//   2 REQUEST  empty payload: "send me your FLOOR" (a node that takes or imports a slot).
// Ping extensions were the other way to carry it; Redis 7.0 logs every unknown one as a warning
// (redis/redis#12771).
//
// The floor is the sender's durable mark rather than its last token so that tokens the source
// still draws for a key of a MIGRATING slot (a hand-off to a BSETTP waiter of a key not yet
// moved) are covered too; when the source reserves a new block while a slot of its migrates, it
// sends the new mark to the target before the token that needed it leaves (ClusterBus, through
// FenceListener).
#pragma once

#include <cstdint>

#include "cluster/bus_message.h"
#include "util/status.h"

namespace redistp {

inline constexpr uint64_t kTpBusModuleId = 0x72656469732d7470ULL;  // "redis-tp"
inline constexpr uint8_t kTpBusFenceFloor = 1;
inline constexpr uint8_t kTpBusFenceFloorRequest = 2;

// A redis-tp module message, decoded.
struct FenceFloorMessage {
  bool request = false;  // REQUEST; else FLOOR
  uint64_t floor = 0;    // FLOOR only
};

// Fills the module fields of `m` (whose header the caller built, type MODULE) as a FLOOR or a
// REQUEST.
void SetFenceFloor(BusMessage* m, uint64_t floor);
void SetFenceFloorRequest(BusMessage* m);

// Whether `m` is a module frame of redis-tp's id (it may still be malformed).
bool IsTpBusMessage(const BusMessage& m);
// A redis-tp module frame's contents. Errors: another module id, an unknown type, a payload of
// the wrong size.
Result<FenceFloorMessage> ParseFenceFloor(const BusMessage& m);

}  // namespace redistp
