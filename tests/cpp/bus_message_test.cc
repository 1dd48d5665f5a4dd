// The cluster bus codec against Redis 7.0's own frames: every frame captured between Debian
// Redis 7.0.15 nodes (utils/capture-bus-frames.sh wrote them into tests/assets/cluster/frames)
// decodes, its fields read as the scenario made them (ports, types, gossip, the hostname
// extension, the published channel and message, the failed node), and encodes back to the same
// bytes. Built messages round-trip too, and malformed frames are errors, never crashes. The
// frame reader cuts the captured frames back out of one stream whatever the read sizes.
#include "cluster/bus_message.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "cluster/bus_frame_reader.h"

namespace redistp {
namespace {

namespace fs = std::filesystem;

// The frame corpus, found from the working directory (the repository root when run by `make`)
// or from this source file's place.
fs::path FramesDir() {
  for (fs::path p : {fs::path("tests/assets/cluster/frames"),
                     fs::path(__FILE__).parent_path().parent_path() / "assets/cluster/frames"}) {
    if (fs::is_directory(p)) return p;
  }
  return {};
}

struct Frame {
  std::string name;
  std::string bytes;
};

std::vector<Frame> LoadFrames() {
  std::vector<Frame> out;
  fs::path dir = FramesDir();
  if (dir.empty()) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".bin") continue;
    std::ifstream in(e.path(), std::ios::binary);
    out.push_back(
        {e.path().filename().string(), std::string(std::istreambuf_iterator<char>(in), {})});
  }
  std::sort(out.begin(), out.end(), [](const Frame& a, const Frame& b) { return a.name < b.name; });
  return out;
}

// The type word of a capture's file name ("0009-ping-23722-in.bin" -> "ping").
std::string NameType(const std::string& file) {
  size_t a = file.find('-') + 1;
  return file.substr(a, file.find('-', a) - a);
}

const std::map<std::string, BusType> kNamedTypes = {
    {"ping", BusType::kPing},
    {"pong", BusType::kPong},
    {"meet", BusType::kMeet},
    {"fail", BusType::kFail},
    {"publish", BusType::kPublish},
    {"authreq", BusType::kFailoverAuthRequest},
    {"authack", BusType::kFailoverAuthAck},
    {"update", BusType::kUpdate},
    {"mfstart", BusType::kMfStart},
    {"module", BusType::kModule},
    {"publishshard", BusType::kPublishShard},
};

TEST(BusMessage, CapturedFramesDecodeAndReencodeByteIdentical) {
  std::vector<Frame> frames = LoadFrames();
  ASSERT_GE(frames.size(), 20u) << "capture corpus missing";
  std::map<BusType, int> seen;
  for (const Frame& f : frames) {
    SCOPED_TRACE(f.name);
    Result<BusMessage> m = DecodeBusMessage(f.bytes);
    ASSERT_TRUE(m.ok()) << m.status().message();
    ASSERT_TRUE(kNamedTypes.count(NameType(f.name)));
    EXPECT_EQ(m.value().type(), kNamedTypes.at(NameType(f.name)));
    EXPECT_EQ(m.value().hdr.ver, kBusProtocolVersion);
    // The nodes ran on client ports 23701-23703 and announced bus ports 23721-23723.
    EXPECT_GE(m.value().hdr.port, 23701);
    EXPECT_LE(m.value().hdr.port, 23703);
    EXPECT_EQ(m.value().hdr.cport, m.value().hdr.port + 20);
    EXPECT_EQ(BusEncodedSize(m.value()), f.bytes.size());
    EXPECT_EQ(EncodeBusMessage(m.value()), f.bytes);
    seen[m.value().type()]++;
  }
  for (BusType t : {BusType::kMeet, BusType::kPing, BusType::kPong, BusType::kFail,
                    BusType::kPublish, BusType::kPublishShard, BusType::kMfStart,
                    BusType::kFailoverAuthRequest, BusType::kFailoverAuthAck, BusType::kUpdate}) {
    EXPECT_GT(seen[t], 0) << "no captured frame of type " << static_cast<int>(t);
  }
}

TEST(BusMessage, CapturedPingsCarryGossipAndHostname) {
  int with_gossip = 0;
  for (const Frame& f : LoadFrames()) {
    Result<BusMessage> m = DecodeBusMessage(f.bytes);
    ASSERT_TRUE(m.ok()) << f.name;
    if (!BusCarriesGossip(m.value().hdr.type)) continue;
    SCOPED_TRACE(f.name);
    const BusMessage& msg = m.value();
    // Each node set cluster-announce-hostname node-<a|b|c>.example.
    ASSERT_EQ(msg.exts.size(), 1u);
    EXPECT_EQ(msg.exts[0].type, kBusExtHostname);
    std::string host(BusHostnameOf(msg.exts[0]));
    EXPECT_EQ(host,
              std::string("node-") + static_cast<char>('a' + msg.hdr.port - 23701) + ".example");
    EXPECT_TRUE(msg.hdr.mflags[0] & kBusMsgExtData);
    EXPECT_EQ(BusIpView(msg.hdr.myip), "");  // nothing announced: the peer address is used
    for (char c : BusNameView(msg.hdr.sender)) EXPECT_TRUE(std::isxdigit(c));
    for (const BusGossip& g : msg.gossip) {
      EXPECT_EQ(BusIpView(g.ip), "127.0.0.1");
      EXPECT_EQ(g.cport, g.port + 20);
      ++with_gossip;
    }
  }
  EXPECT_GT(with_gossip, 0);
}

TEST(BusMessage, CapturedPublishFailAndUpdateBodies) {
  // Who is who: each node's name, from the frames it sent (client ports 23701-23703 = A, B, C).
  std::map<uint16_t, std::string> name_of_port;
  for (const Frame& f : LoadFrames()) {
    Result<BusMessage> m = DecodeBusMessage(f.bytes);
    ASSERT_TRUE(m.ok()) << f.name;
    std::string name(BusNameView(m.value().hdr.sender));
    auto [it, fresh] = name_of_port.emplace(m.value().hdr.port, name);
    EXPECT_EQ(it->second, name) << f.name << ": one port, two names";
  }
  ASSERT_EQ(name_of_port.size(), 3u);
  bool publish = false, shard = false, fail = false, update = false;
  for (const Frame& f : LoadFrames()) {
    const BusMessage msg = DecodeBusMessage(f.bytes).value();
    if (msg.type() == BusType::kPublish) {
      EXPECT_EQ(msg.channel, "news");
      EXPECT_EQ(msg.message, "hello");
      publish = true;
    } else if (msg.type() == BusType::kPublishShard) {
      EXPECT_EQ(msg.channel, "bar");
      EXPECT_EQ(msg.message, "shard-hello");
      shard = true;
    } else if (msg.type() == BusType::kFail) {
      EXPECT_EQ(BusNameView(msg.fail_node), name_of_port[23703]);  // C was killed
      fail = true;
    } else if (msg.type() == BusType::kUpdate) {
      // C's stale claim was corrected with A's slots 0-8191 at A's newer epoch.
      EXPECT_EQ(BusNameView(msg.update_node), name_of_port[23701]);
      EXPECT_EQ(msg.hdr.port, 23702);  // B sent it
      EXPECT_TRUE(BusSlotIsSet(msg.update_slots, 0));
      EXPECT_TRUE(BusSlotIsSet(msg.update_slots, 8191));
      EXPECT_FALSE(BusSlotIsSet(msg.update_slots, 8192));
      EXPECT_GT(msg.update_config_epoch, 0u);
      update = true;
    }
  }
  EXPECT_TRUE(publish && shard && fail && update);
}

BusMessage Sample(BusType t) {
  BusMessage m;
  m.hdr.type = static_cast<uint16_t>(t);
  m.hdr.port = 7000;
  m.hdr.cport = 17000;
  m.hdr.current_epoch = 0x0102030405060708ull;
  m.hdr.config_epoch = 9;
  m.hdr.offset = 12345;
  m.hdr.sender = MakeBusName(std::string(40, 'a'));
  m.hdr.myip = MakeBusIp("10.0.0.1");
  m.hdr.flags = kBusNodeMaster | kBusNodeMyself;
  BusSetSlot(m.hdr.myslots, 0);
  BusSetSlot(m.hdr.myslots, 16383);
  return m;
}

TEST(BusMessage, BuiltMessagesRoundTrip) {
  BusMessage ping = Sample(BusType::kPing);
  BusGossip g;
  g.nodename = MakeBusName(std::string(40, 'b'));
  g.ip = MakeBusIp("127.0.0.1");
  g.port = 7001;
  g.cport = 17001;
  g.flags = kBusNodeSlave | kBusNodePfail;
  g.ping_sent = 1700000000;
  ping.gossip = {g, g};
  ping.exts = {MakeBusHostnameExt("h1234567"), MakeBusForgottenNodeExt({g.nodename, 60})};
  BusMessage update = Sample(BusType::kUpdate);
  update.update_config_epoch = 77;
  update.update_node = g.nodename;
  BusSetSlot(update.update_slots, 42);
  BusMessage pub = Sample(BusType::kPublish);
  pub.channel = std::string("c\0h", 3);
  pub.message = "";
  BusMessage mod = Sample(BusType::kModule);
  mod.module_id = 0xabcdef;
  mod.module_type = 3;
  mod.module_payload = "xyz";
  BusMessage fail = Sample(BusType::kFail);
  fail.fail_node = g.nodename;
  BusMessage unknown = Sample(static_cast<BusType>(200));
  unknown.raw_body = "opaque";
  for (const BusMessage* m : {&ping, &update, &pub, &mod, &fail, &unknown}) {
    std::string bytes = EncodeBusMessage(*m);
    SCOPED_TRACE(m->hdr.type);
    EXPECT_EQ(bytes.size(), BusEncodedSize(*m));
    Result<BusMessage> back = DecodeBusMessage(bytes);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(EncodeBusMessage(back.value()), bytes);
    EXPECT_EQ(back.value().hdr.current_epoch, 0x0102030405060708ull);
    EXPECT_TRUE(BusSlotIsSet(back.value().hdr.myslots, 16383));
    EXPECT_FALSE(BusSlotIsSet(back.value().hdr.myslots, 1));
  }
  Result<BusMessage> p = DecodeBusMessage(EncodeBusMessage(ping));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.value().hdr.count, 2);
  EXPECT_EQ(p.value().hdr.extensions, 2);
  EXPECT_EQ(BusHostnameOf(p.value().exts[0]), "h1234567");
  EXPECT_EQ(p.value().exts[0].data.size(), 16u);  // 8 characters, the NUL, padding to 16
  Result<BusForgottenNode> fn = ParseBusForgottenNodeExt(p.value().exts[1]);
  ASSERT_TRUE(fn.ok());
  EXPECT_EQ(fn.value().ttl, 60u);
  EXPECT_EQ(BusIpView(p.value().gossip[1].ip), "127.0.0.1");
  EXPECT_EQ(p.value().gossip[1].flags, kBusNodeSlave | kBusNodePfail);
  EXPECT_EQ(DecodeBusMessage(EncodeBusMessage(pub)).value().channel, std::string("c\0h", 3));
  EXPECT_EQ(DecodeBusMessage(EncodeBusMessage(update)).value().update_config_epoch, 77u);
}

// The names Redis 7.0 prints in CLUSTER INFO's message statistics (seen there: ping, pong,
// meet, publish, auth-req, auth-ack, mfstart).
TEST(BusMessage, TypeNamesAreClusterInfos) {
  EXPECT_EQ(BusTypeName(0), "ping");
  EXPECT_EQ(BusTypeName(static_cast<uint16_t>(BusType::kFailoverAuthRequest)), "auth-req");
  EXPECT_EQ(BusTypeName(static_cast<uint16_t>(BusType::kFailoverAuthAck)), "auth-ack");
  EXPECT_EQ(BusTypeName(static_cast<uint16_t>(BusType::kMfStart)), "mfstart");
  EXPECT_EQ(BusTypeName(static_cast<uint16_t>(BusType::kPublishShard)), "publishshard");
  EXPECT_EQ(BusTypeName(kBusTypeCount), "unknown");
}

TEST(BusMessage, FrameLengthNeedsSignatureAndAHeader) {
  std::string good = EncodeBusMessage(Sample(BusType::kMfStart));
  ASSERT_EQ(good.size(), kBusHeaderSize);
  EXPECT_EQ(BusFrameLength(good.substr(0, 8)).value(), kBusHeaderSize);
  EXPECT_FALSE(BusFrameLength("RCm").ok());
  EXPECT_FALSE(BusFrameLength(std::string("XCmb\0\0\x08\xd0", 8)).ok());
  EXPECT_FALSE(BusFrameLength(std::string("RCmb\0\0\x08\xcf", 8)).ok());  // 2255 bytes
}

// A 7.0 node accepts a ping extension of a type it does not know (it answered such a MEET with
// a PONG when tried); the codec keeps it as an opaque payload, byte for byte.
TEST(BusMessage, UnknownExtensionTypesAreKept) {
  BusMessage ping = Sample(BusType::kMeet);
  BusPingExt odd;
  odd.type = 7;
  odd.data = std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8);
  ping.exts = {odd, MakeBusHostnameExt("h")};
  const std::string frame = EncodeBusMessage(ping);
  Result<BusMessage> back = DecodeBusMessage(frame);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back.value().exts.size(), 2u);
  EXPECT_EQ(back.value().exts[0].type, 7);
  EXPECT_EQ(back.value().exts[0].data, odd.data);
  EXPECT_EQ(BusHostnameOf(back.value().exts[1]), "h");
  EXPECT_EQ(EncodeBusMessage(back.value()), frame);
}

// Every prefix and every single-field corruption of a valid frame decodes or fails cleanly.
TEST(BusMessage, MalformedFramesAreErrors) {
  BusMessage ping = Sample(BusType::kPing);
  ping.gossip.resize(1);
  ping.exts = {MakeBusHostnameExt("node")};
  const std::string frame = EncodeBusMessage(ping);
  for (size_t n = 0; n < frame.size(); n += 7) {
    EXPECT_FALSE(DecodeBusMessage(frame.substr(0, n)).ok()) << n;
  }
  auto with_totlen = [](std::string f, uint32_t len) {
    f[4] = static_cast<char>(len >> 24);
    f[5] = static_cast<char>(len >> 16);
    f[6] = static_cast<char>(len >> 8);
    f[7] = static_cast<char>(len);
    return f;
  };
  // A frame longer than its content, even with the length field agreeing, is refused.
  EXPECT_FALSE(DecodeBusMessage(with_totlen(frame + std::string(8, '\0'), frame.size() + 8)).ok());
  // A gossip count past the frame's end.
  std::string f = frame;
  f[15] = 50;
  EXPECT_FALSE(DecodeBusMessage(f).ok());
  // An extension length that is not a multiple of 8, that is zero, or that passes the end.
  const size_t ext = kBusHeaderSize + kBusGossipSize;
  for (uint8_t bad : {uint8_t{12}, uint8_t{0}, uint8_t{64}}) {
    f = frame;
    f[ext + 3] = static_cast<char>(bad);
    EXPECT_FALSE(DecodeBusMessage(f).ok()) << int(bad);
  }
  // Without the extension bit the extension bytes are unexplained: refused.
  f = frame;
  f[2253] = 0;
  EXPECT_FALSE(DecodeBusMessage(f).ok());
  // Publish lengths that disagree with the frame.
  BusMessage pub = Sample(BusType::kPublish);
  pub.channel = "ch";
  pub.message = "msg";
  f = EncodeBusMessage(pub);
  f[kBusHeaderSize + 3] = 100;
  EXPECT_FALSE(DecodeBusMessage(f).ok());
  f[kBusHeaderSize + 3] = static_cast<char>(0xff);
  f[kBusHeaderSize] = static_cast<char>(0xff);  // 4 GB channel: no overflow, just an error
  EXPECT_FALSE(DecodeBusMessage(f).ok());
  // Fixed-size types with extra bytes.
  std::string fail = EncodeBusMessage(Sample(BusType::kFail));
  EXPECT_FALSE(DecodeBusMessage(with_totlen(fail + "x", fail.size() + 1)).ok());
  std::string auth = EncodeBusMessage(Sample(BusType::kFailoverAuthAck));
  EXPECT_FALSE(DecodeBusMessage(with_totlen(auth + "x", auth.size() + 1)).ok());
}

}  // namespace
}  // namespace redistp

namespace redistp {
namespace {

// The captured frames, concatenated as one stream, come out of the reader whole and in order
// whatever the read sizes (one byte at a time, primes, everything at once).
TEST(BusFrameReader, SplitsAStreamWhateverTheReadSizes) {
  std::vector<Frame> frames = LoadFrames();
  ASSERT_FALSE(frames.empty());
  std::string stream;
  for (const Frame& f : frames) stream += f.bytes;
  for (size_t step :
       {size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{2255}, size_t{4099}, stream.size()}) {
    SCOPED_TRACE(step);
    BusFrameReader r;
    std::vector<std::string> out;
    for (size_t at = 0; at < stream.size(); at += step) {
      ASSERT_TRUE(r.Feed(std::string_view(stream).substr(at, step), &out).ok());
    }
    EXPECT_EQ(r.buffered(), 0u);
    ASSERT_EQ(out.size(), frames.size());
    for (size_t i = 0; i < frames.size(); ++i) EXPECT_EQ(out[i], frames[i].bytes) << i;
  }
}

TEST(BusFrameReader, BadHeaderPoisonsTheStream) {
  std::string ok = EncodeBusMessage(Sample(BusType::kMfStart));
  BusFrameReader r;
  std::vector<std::string> out;
  ASSERT_TRUE(r.Feed(ok, &out).ok());
  EXPECT_EQ(out.size(), 1u);
  EXPECT_FALSE(r.Feed(std::string("RCmX\0\0\x08\xd0", 8), &out).ok());
  EXPECT_TRUE(r.failed());
  EXPECT_FALSE(r.Feed(ok, &out).ok());  // no resync
  EXPECT_EQ(out.size(), 1u);
  // A length below a header's is refused as soon as the 8 bytes are in.
  BusFrameReader short_len;
  EXPECT_FALSE(short_len.Feed(std::string("RCmb\0\0\0\x10", 8), &out).ok());
}

// A peer that declares a huge frame and sends little holds only what it sent.
TEST(BusFrameReader, HoldsOnlyWhatArrived) {
  BusFrameReader r;
  std::vector<std::string> out;
  ASSERT_TRUE(r.Feed(std::string("RCmb\xff\xff\xff\xff", 8) + std::string(100, 'x'), &out).ok());
  EXPECT_EQ(r.buffered(), 108u);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace redistp
