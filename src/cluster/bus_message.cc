// The cluster bus codec (see bus_message.h for the frame layout). Reading goes through a bounded
// cursor that never passes the frame's end; every length is checked in 64-bit arithmetic before
// any body field is read, so no frame can make the decoder read outside it.
#include "cluster/bus_message.h"

#include <algorithm>
#include <cstring>

namespace redistp {
namespace {

// Appends big-endian integers and raw bytes.
class Writer {
 public:
  explicit Writer(std::string* out) : out_(out) {}
  void U8(uint8_t v) { out_->push_back(static_cast<char>(v)); }
  void U16(uint16_t v) {
    U8(static_cast<uint8_t>(v >> 8));
    U8(static_cast<uint8_t>(v));
  }
  void U32(uint32_t v) {
    U16(static_cast<uint16_t>(v >> 16));
    U16(static_cast<uint16_t>(v));
  }
  void U64(uint64_t v) {
    U32(static_cast<uint32_t>(v >> 32));
    U32(static_cast<uint32_t>(v));
  }
  void Bytes(const void* p, size_t n) { out_->append(static_cast<const char*>(p), n); }
  void Bytes(std::string_view s) { out_->append(s); }
  template <size_t N, typename T>
  void Array(const std::array<T, N>& a) {
    Bytes(a.data(), N);
  }

 private:
  std::string* out_;
};

// Reads big-endian integers and raw bytes from a span the caller has already length-checked;
// each read stays inside the span (a short span reads zeros and sets failed()).
class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}
  bool failed() const { return failed_; }
  size_t left() const { return s_.size() - pos_; }
  uint8_t U8() {
    if (!Need(1)) return 0;
    return static_cast<uint8_t>(s_[pos_++]);
  }
  uint16_t U16() {
    uint16_t hi = U8();
    return static_cast<uint16_t>((hi << 8) | U8());
  }
  uint32_t U32() {
    uint32_t hi = U16();
    return (hi << 16) | U16();
  }
  uint64_t U64() {
    uint64_t hi = U32();
    return (hi << 32) | U32();
  }
  std::string_view Bytes(size_t n) {
    if (!Need(n)) return {};
    std::string_view v = s_.substr(pos_, n);
    pos_ += n;
    return v;
  }
  template <size_t N, typename T>
  void Array(std::array<T, N>* a) {
    std::string_view v = Bytes(N);
    if (v.size() == N) std::memcpy(a->data(), v.data(), N);
  }

 private:
  bool Need(size_t n) {
    if (left() >= n) return true;
    failed_ = true;
    pos_ = s_.size();
    return false;
  }
  std::string_view s_;
  size_t pos_ = 0;
  bool failed_ = false;
};

size_t Align8(size_t n) { return (n + 7) & ~size_t{7}; }

void WriteHeader(const BusHeader& h, uint32_t totlen, uint16_t count, uint16_t extensions,
                 uint8_t mflags0, Writer& w) {
  w.Bytes(kBusSignature);
  w.U32(totlen);
  w.U16(h.ver);
  w.U16(h.port);
  w.U16(h.type);
  w.U16(count);
  w.U64(h.current_epoch);
  w.U64(h.config_epoch);
  w.U64(h.offset);
  w.Array(h.sender);
  w.Array(h.myslots);
  w.Array(h.slaveof);
  w.Array(h.myip);
  w.U16(extensions);
  w.Array(h.notused1);
  w.U16(h.pport);
  w.U16(h.cport);
  w.U16(h.flags);
  w.U8(h.state);
  w.U8(mflags0);
  w.U8(h.mflags[1]);
  w.U8(h.mflags[2]);
}

void ReadHeader(Reader& r, BusHeader* h) {
  r.Bytes(kBusSignature.size());  // checked by the caller
  r.U32();                        // totlen: checked by the caller
  h->ver = r.U16();
  h->port = r.U16();
  h->type = r.U16();
  h->count = r.U16();
  h->current_epoch = r.U64();
  h->config_epoch = r.U64();
  h->offset = r.U64();
  r.Array(&h->sender);
  r.Array(&h->myslots);
  r.Array(&h->slaveof);
  r.Array(&h->myip);
  h->extensions = r.U16();
  r.Array(&h->notused1);
  h->pport = r.U16();
  h->cport = r.U16();
  h->flags = r.U16();
  h->state = r.U8();
  for (uint8_t& f : h->mflags) f = r.U8();
}

void WriteGossip(const BusGossip& g, Writer& w) {
  w.Array(g.nodename);
  w.U32(g.ping_sent);
  w.U32(g.pong_received);
  w.Array(g.ip);
  w.U16(g.port);
  w.U16(g.cport);
  w.U16(g.flags);
  w.U16(g.pport);
  w.U16(g.notused1);
}

BusGossip ReadGossip(Reader& r) {
  BusGossip g;
  r.Array(&g.nodename);
  g.ping_sent = r.U32();
  g.pong_received = r.U32();
  r.Array(&g.ip);
  g.port = r.U16();
  g.cport = r.U16();
  g.flags = r.U16();
  g.pport = r.U16();
  g.notused1 = r.U16();
  return g;
}

bool IsType(uint16_t raw, BusType t) { return raw == static_cast<uint16_t>(t); }

// The number of body bytes `m` encodes to, after the header.
size_t BodySize(const BusMessage& m) {
  const uint16_t t = m.hdr.type;
  if (BusCarriesGossip(t)) {
    size_t n = m.gossip.size() * kBusGossipSize;
    for (const BusPingExt& e : m.exts) n += kBusPingExtHeaderSize + Align8(e.data.size());
    return n;
  }
  if (IsType(t, BusType::kFail)) return kBusFailBodySize;
  if (IsType(t, BusType::kPublish) || IsType(t, BusType::kPublishShard)) {
    return 8 + m.channel.size() + m.message.size();
  }
  if (IsType(t, BusType::kUpdate)) return kBusUpdateBodySize;
  if (IsType(t, BusType::kModule)) return 8 + 4 + 1 + m.module_payload.size();
  if (IsType(t, BusType::kFailoverAuthRequest) || IsType(t, BusType::kFailoverAuthAck) ||
      IsType(t, BusType::kMfStart)) {
    return 0;
  }
  return m.raw_body.size();
}

Status Bad(std::string what) { return Status::Error("cluster bus: " + std::move(what)); }

// Decodes the gossip and extensions of a PING/PONG/MEET body (the whole rest of the frame).
// Extensions are read only when the header says so (mflags[0]'s extension bit), as a 7.0 node
// does; each must be at least its own header, a multiple of 8 and inside the frame.
Status ReadPingBody(Reader& r, BusMessage* m) {
  const BusHeader& h = m->hdr;
  if (static_cast<uint64_t>(h.count) * kBusGossipSize > r.left()) {
    return Bad("gossip count exceeds the frame");
  }
  m->gossip.reserve(h.count);
  for (uint16_t i = 0; i < h.count; ++i) m->gossip.push_back(ReadGossip(r));
  if (h.mflags[0] & kBusMsgExtData) {
    for (uint16_t i = 0; i < h.extensions; ++i) {
      if (r.left() < kBusPingExtHeaderSize) return Bad("extension header exceeds the frame");
      const uint32_t len = r.U32();
      BusPingExt e;
      e.type = r.U16();
      e.unused = r.U16();
      if (len < kBusPingExtHeaderSize || len % 8 != 0) return Bad("bad extension length");
      if (len - kBusPingExtHeaderSize > r.left()) return Bad("extension exceeds the frame");
      e.data = std::string(r.Bytes(len - kBusPingExtHeaderSize));
      m->exts.push_back(std::move(e));
    }
  }
  if (r.left() != 0) return Bad("frame length does not match its gossip and extensions");
  return Status::Ok();
}

}  // namespace

std::string_view BusTypeName(uint16_t type) {
  static constexpr std::string_view kNames[kBusTypeCount] = {
      "ping",     "pong",   "meet",    "fail",   "publish",     "auth-req",
      "auth-ack", "update", "mfstart", "module", "publishshard"};
  return type < kBusTypeCount ? kNames[type] : "unknown";
}

BusName MakeBusName(std::string_view id) {
  BusName n{};
  std::memcpy(n.data(), id.data(), std::min(id.size(), n.size()));
  return n;
}

BusIp MakeBusIp(std::string_view ip) {
  BusIp a{};
  // Keep the last byte a NUL, as a C string in a 46-byte array always has one.
  std::memcpy(a.data(), ip.data(), std::min(ip.size(), a.size() - 1));
  return a;
}

std::string_view BusIpView(const BusIp& ip) {
  const char* end = std::find(ip.begin(), ip.end(), '\0');
  return {ip.data(), static_cast<size_t>(end - ip.data())};
}

BusPingExt MakeBusHostnameExt(std::string_view hostname) {
  BusPingExt e;
  e.type = kBusExtHostname;
  e.data.assign(hostname);
  e.data.resize(Align8(hostname.size() + 1), '\0');  // the terminator, then padding
  return e;
}

std::string_view BusHostnameOf(const BusPingExt& ext) {
  std::string_view d = ext.data;
  return d.substr(0, std::min(d.find('\0'), d.size()));
}

BusPingExt MakeBusForgottenNodeExt(const BusForgottenNode& f) {
  BusPingExt e;
  e.type = kBusExtForgottenNode;
  Writer w(&e.data);
  w.Array(f.name);
  w.U64(f.ttl);
  return e;
}

Result<BusForgottenNode> ParseBusForgottenNodeExt(const BusPingExt& ext) {
  if (ext.type != kBusExtForgottenNode || ext.data.size() != kBusNameLen + 8) {
    return Bad("bad forgotten-node extension");
  }
  Reader r(ext.data);
  BusForgottenNode f;
  r.Array(&f.name);
  f.ttl = r.U64();
  return f;
}

Result<uint32_t> BusFrameLength(std::string_view first8) {
  if (first8.size() < 8 || first8.substr(0, 4) != kBusSignature) return Bad("bad signature");
  Reader r(first8.substr(4, 4));
  const uint32_t totlen = r.U32();
  if (totlen < kBusHeaderSize) return Bad("frame shorter than a header");
  return totlen;
}

Result<BusMessage> DecodeBusMessage(std::string_view frame) {
  Result<uint32_t> len = BusFrameLength(frame.substr(0, std::min<size_t>(frame.size(), 8)));
  if (!len.ok()) return len.status();
  if (len.value() != frame.size()) return Bad("length field does not match the frame");
  BusMessage m;
  Reader r(frame);
  ReadHeader(r, &m.hdr);
  const uint16_t t = m.hdr.type;
  // Fixed-size bodies first: the frame must be exactly header + body.
  auto fixed = [&](size_t body) -> Status {
    if (r.left() != body) return Bad("frame length does not match its type");
    return Status::Ok();
  };
  if (BusCarriesGossip(t)) {
    Status s = ReadPingBody(r, &m);
    if (!s.ok()) return s;
  } else if (IsType(t, BusType::kFail)) {
    if (Status s = fixed(kBusFailBodySize); !s.ok()) return s;
    r.Array(&m.fail_node);
  } else if (IsType(t, BusType::kPublish) || IsType(t, BusType::kPublishShard)) {
    if (r.left() < 8) return Bad("publish body too short");
    const uint64_t chlen = r.U32();
    const uint64_t msglen = r.U32();
    if (chlen + msglen != r.left()) return Bad("publish lengths do not match the frame");
    m.channel = std::string(r.Bytes(chlen));
    m.message = std::string(r.Bytes(msglen));
  } else if (IsType(t, BusType::kUpdate)) {
    if (Status s = fixed(kBusUpdateBodySize); !s.ok()) return s;
    m.update_config_epoch = r.U64();
    r.Array(&m.update_node);
    r.Array(&m.update_slots);
  } else if (IsType(t, BusType::kModule)) {
    if (r.left() < 13) return Bad("module body too short");
    m.module_id = r.U64();
    const uint64_t plen = r.U32();
    m.module_type = r.U8();
    if (plen != r.left()) return Bad("module length does not match the frame");
    m.module_payload = std::string(r.Bytes(plen));
  } else if (IsType(t, BusType::kFailoverAuthRequest) || IsType(t, BusType::kFailoverAuthAck) ||
             IsType(t, BusType::kMfStart)) {
    if (Status s = fixed(0); !s.ok()) return s;
  } else {
    m.raw_body = std::string(r.Bytes(r.left()));
  }
  if (r.failed()) return Bad("truncated frame");  // unreachable after the checks above
  return m;
}

size_t BusEncodedSize(const BusMessage& m) { return kBusHeaderSize + BodySize(m); }

void EncodeBusMessage(const BusMessage& m, std::string* out) {
  const size_t total = BusEncodedSize(m);
  out->reserve(out->size() + total);
  Writer w(out);
  const BusHeader& h = m.hdr;
  uint16_t count = h.count;
  uint16_t extensions = h.extensions;
  uint8_t mflags0 = h.mflags[0];
  const bool ping = BusCarriesGossip(h.type);
  if (ping) {
    count = static_cast<uint16_t>(m.gossip.size());
    if (!m.exts.empty()) {
      extensions = static_cast<uint16_t>(m.exts.size());
      mflags0 |= kBusMsgExtData;
    }
  }
  WriteHeader(h, static_cast<uint32_t>(total), count, extensions, mflags0, w);
  if (ping) {
    for (const BusGossip& g : m.gossip) WriteGossip(g, w);
    for (const BusPingExt& e : m.exts) {
      const size_t padded = Align8(e.data.size());
      w.U32(static_cast<uint32_t>(kBusPingExtHeaderSize + padded));
      w.U16(e.type);
      w.U16(e.unused);
      w.Bytes(e.data);
      out->append(padded - e.data.size(), '\0');
    }
  } else if (IsType(h.type, BusType::kFail)) {
    w.Array(m.fail_node);
  } else if (IsType(h.type, BusType::kPublish) || IsType(h.type, BusType::kPublishShard)) {
    w.U32(static_cast<uint32_t>(m.channel.size()));
    w.U32(static_cast<uint32_t>(m.message.size()));
    w.Bytes(m.channel);
    w.Bytes(m.message);
  } else if (IsType(h.type, BusType::kUpdate)) {
    w.U64(m.update_config_epoch);
    w.Array(m.update_node);
    w.Array(m.update_slots);
  } else if (IsType(h.type, BusType::kModule)) {
    w.U64(m.module_id);
    w.U32(static_cast<uint32_t>(m.module_payload.size()));
    w.U8(m.module_type);
    w.Bytes(m.module_payload);
  } else if (!IsType(h.type, BusType::kFailoverAuthRequest) &&
             !IsType(h.type, BusType::kFailoverAuthAck) && !IsType(h.type, BusType::kMfStart)) {
    w.Bytes(m.raw_body);
  }
}

std::string EncodeBusMessage(const BusMessage& m) {
  std::string out;
  EncodeBusMessage(m, &out);
  return out;
}

}  // namespace redistp
