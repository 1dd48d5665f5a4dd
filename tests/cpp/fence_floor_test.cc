// The redis-tp fence-floor bus messages (cluster/fence_floor.h; issue 26): built into a Redis
// 7.0 MODULE frame that decodes as one (the lengths a 7.0 node checks: header + 13 + payload),
// read back to the same floor, and anything else (another module, another type, a payload of
// the wrong size) refused rather than taken as a floor.
#include "cluster/fence_floor.h"

#include <gtest/gtest.h>

#include <string>

#include "cluster/bus_message.h"

namespace redistp {
namespace {

BusMessage ModuleFrame() {
  BusMessage m;
  m.hdr.type = static_cast<uint16_t>(BusType::kModule);
  m.hdr.sender = MakeBusName(std::string(40, 'a'));
  return m;
}

TEST(FenceFloorMessage, AFloorIsAModuleFrameOfRedisTpsIdAndReadsBack) {
  for (uint64_t floor : {uint64_t{0}, uint64_t{1}, uint64_t{0x0102030405060708},
                         (uint64_t{1} << 52) + 12345, ~uint64_t{0}}) {
    BusMessage m = ModuleFrame();
    SetFenceFloor(&m, floor);
    const std::string bytes = EncodeBusMessage(m);
    // What a 7.0 node checks before it hands the frame to a module receiver.
    EXPECT_EQ(bytes.size(), kBusHeaderSize + 13 + 8);
    Result<BusMessage> back = DecodeBusMessage(bytes);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(back.value().type(), BusType::kModule);
    EXPECT_EQ(back.value().module_id, kTpBusModuleId);
    EXPECT_TRUE(IsTpBusMessage(back.value()));
    Result<FenceFloorMessage> f = ParseFenceFloor(back.value());
    ASSERT_TRUE(f.ok()) << f.status().message();
    EXPECT_FALSE(f.value().request);
    EXPECT_EQ(f.value().floor, floor);
  }
}

TEST(FenceFloorMessage, TheFloorIsBigEndianOnTheWire) {
  BusMessage m = ModuleFrame();
  SetFenceFloor(&m, 0x0102030405060708);
  const std::string bytes = EncodeBusMessage(m);
  // Header, module id (8), payload length (4), type (1), payload.
  EXPECT_EQ(bytes.substr(kBusHeaderSize, 8), "redis-tp");
  EXPECT_EQ(bytes.substr(kBusHeaderSize + 8, 4), std::string("\0\0\0\x08", 4));
  EXPECT_EQ(bytes[kBusHeaderSize + 12], kTpBusFenceFloor);
  EXPECT_EQ(bytes.substr(kBusHeaderSize + 13), "\x01\x02\x03\x04\x05\x06\x07\x08");
}

TEST(FenceFloorMessage, ARequestHasNoPayload) {
  BusMessage m = ModuleFrame();
  SetFenceFloor(&m, 99);
  SetFenceFloorRequest(&m);  // replaces the floor
  const std::string bytes = EncodeBusMessage(m);
  EXPECT_EQ(bytes.size(), kBusHeaderSize + 13);
  Result<BusMessage> back = DecodeBusMessage(bytes);
  ASSERT_TRUE(back.ok());
  Result<FenceFloorMessage> f = ParseFenceFloor(back.value());
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f.value().request);
}

TEST(FenceFloorMessage, OtherFramesAreNotFloors) {
  BusMessage other_module = ModuleFrame();
  SetFenceFloor(&other_module, 5);
  other_module.module_id = kTpBusModuleId + 1;
  EXPECT_FALSE(IsTpBusMessage(other_module));
  EXPECT_FALSE(ParseFenceFloor(other_module).ok());

  BusMessage publish = ModuleFrame();
  SetFenceFloor(&publish, 5);
  publish.hdr.type = static_cast<uint16_t>(BusType::kPublish);
  EXPECT_FALSE(IsTpBusMessage(publish));

  BusMessage unknown_type = ModuleFrame();
  SetFenceFloor(&unknown_type, 5);
  unknown_type.module_type = 3;
  EXPECT_TRUE(IsTpBusMessage(unknown_type));
  EXPECT_FALSE(ParseFenceFloor(unknown_type).ok());

  for (size_t size : {0, 7, 9, 16}) {
    BusMessage bad = ModuleFrame();
    SetFenceFloor(&bad, 5);
    bad.module_payload.assign(size, '\x01');
    EXPECT_FALSE(ParseFenceFloor(bad).ok()) << size;
  }
  BusMessage request_with_payload = ModuleFrame();
  SetFenceFloorRequest(&request_with_payload);
  request_with_payload.module_payload = "x";
  EXPECT_FALSE(ParseFenceFloor(request_with_payload).ok());
}

}  // namespace
}  // namespace redistp
