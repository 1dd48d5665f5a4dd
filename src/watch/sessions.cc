#include "watch/sessions.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sys/random.h>

#include <cerrno>
#include <cstdio>

#include "watch/owners.h"

namespace redistp {
namespace {

constexpr size_t kSecretBytes = 16;
constexpr char kHex[] = "0123456789abcdef";

std::string Hex(const uint8_t* p, size_t n) {
  std::string s(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    s[2 * i] = kHex[p[i] >> 4];
    s[2 * i + 1] = kHex[p[i] & 15];
  }
  return s;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

SessionDigest SessionRegistry::DigestOf(std::string_view secret) {
  SessionDigest d{};
  unsigned int n = 0;
  EVP_Digest(secret.data(), secret.size(), d.data(), &n, EVP_sha256(), nullptr);
  return d;
}

std::string SessionRegistry::DigestHex(const SessionDigest& d) { return Hex(d.data(), d.size()); }

bool SessionRegistry::DigestFromHex(std::string_view hex, SessionDigest* out) {
  if (hex.size() != out->size() * 2) return false;
  for (size_t i = 0; i < out->size(); ++i) {
    int hi = HexValue(hex[2 * i]), lo = HexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    (*out)[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return true;
}

bool SessionRegistry::NewToken(uint64_t id, std::string* token, SessionDigest* digest) {
  uint8_t raw[kSecretBytes];
  size_t got = 0;
  while (got < sizeof(raw)) {
    ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<size_t>(n);
  }
  std::string secret = Hex(raw, sizeof(raw));
  *digest = DigestOf(secret);
  *token = std::to_string(id) + ":" + secret;
  return true;
}

bool SessionRegistry::ParseToken(std::string_view token, uint64_t* id, std::string_view* secret) {
  size_t colon = token.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 20) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < colon; ++i) {
    char ch = token[i];
    if (ch < '0' || ch > '9') return false;
    uint64_t next = v * 10 + static_cast<uint64_t>(ch - '0');
    if (next / 10 != v) return false;  // overflow
    v = next;
  }
  std::string_view s = token.substr(colon + 1);
  if (v == 0 || s.size() != kSecretBytes * 2) return false;
  for (char ch : s) {
    if (HexValue(ch) < 0) return false;
  }
  *id = v;
  *secret = s;
  return true;
}

Session& SessionRegistry::Create(uint64_t id, const SessionDigest& digest, int64_t grace_ms,
                                 uint64_t client, int64_t now_ms) {
  Session& s = sessions_[id];
  s = Session{};
  s.id = id;
  s.digest = digest;
  s.grace_ms = grace_ms;
  s.client = client;
  s.opened_ms = now_ms;
  if (client != 0) {
    ++attached_;
  } else {
    s.detached_since_ms = now_ms;
  }
  return s;
}

Session* SessionRegistry::Find(uint64_t id) {
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : &it->second;
}

const Session* SessionRegistry::Find(uint64_t id) const {
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : &it->second;
}

Session* SessionRegistry::Check(std::string_view token) {
  uint64_t id;
  std::string_view secret;
  if (!ParseToken(token, &id, &secret)) return nullptr;
  SessionDigest d = DigestOf(secret);
  // Constant time: how much of a guess matched must not show in the reply's timing.
  auto matches = [&d](const Session* s) {
    return s != nullptr && CRYPTO_memcmp(d.data(), s->digest.data(), d.size()) == 0;
  };
  Session* s = Find(id);
  if (matches(s)) return s;
  if (OwnerIndex::IsInherited(id)) return nullptr;
  s = Find(OwnerIndex::Inherited(id));
  return matches(s) ? s : nullptr;
}

void SessionRegistry::DropDeadline(const Session& s) {
  if (s.deadline_ms != 0) deadlines_.erase({s.deadline_ms, s.id});
}

void SessionRegistry::Attach(Session& s, uint64_t client) {
  DropDeadline(s);
  s.deadline_ms = 0;
  if (s.client == 0) ++attached_;
  s.client = client;
  s.detached_since_ms = 0;
}

void SessionRegistry::Detach(Session& s, int64_t now_ms, bool start_grace) {
  DropDeadline(s);
  if (s.client != 0) --attached_;
  s.client = 0;
  s.detached_since_ms = now_ms;
  s.deadline_ms = 0;
  if (!start_grace) return;
  // Deadline 0 means "none": a grace of 0 at the epoch is not a case worth a special value.
  s.deadline_ms = now_ms + s.grace_ms;
  deadlines_.insert({s.deadline_ms, s.id});
}

void SessionRegistry::SuspendGraces() {
  deadlines_.clear();
  for (auto& [id, s] : sessions_) s.deadline_ms = 0;
}

size_t SessionRegistry::StartGraces(int64_t now_ms) {
  size_t n = 0;
  for (auto& [id, s] : sessions_) {
    if (s.client != 0 || s.deadline_ms != 0) continue;
    s.replayed = false;  // a live session of this server now, no longer a record's
    s.detached_since_ms = now_ms;
    s.deadline_ms = now_ms + s.grace_ms;
    deadlines_.insert({s.deadline_ms, s.id});
    ++n;
  }
  return n;
}

void SessionRegistry::Erase(uint64_t id) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return;
  DropDeadline(it->second);
  if (it->second.client != 0) --attached_;
  sessions_.erase(it);
}

std::vector<uint64_t> SessionRegistry::TakeExpired(int64_t now_ms) {
  std::vector<uint64_t> ids;
  for (auto it = deadlines_.begin(); it != deadlines_.end() && it->first < now_ms; ++it) {
    ids.push_back(it->second);
  }
  return ids;
}

std::string SessionRegistry::InfoLine(const Session& s, size_t keys, int64_t now_ms) {
  char buf[256];
  const bool attached = s.client != 0;
  int64_t age_s = (now_ms - s.opened_ms) / 1000;
  int64_t detached_ms = attached ? 0 : now_ms - s.detached_since_ms;
  snprintf(buf, sizeof(buf),
           "id=%llu client=%llu state=%s grace-ms=%lld age=%lld detached-ms=%lld keys=%zu "
           "resumes=%llu\n",
           static_cast<unsigned long long>(s.id), static_cast<unsigned long long>(s.client),
           attached ? "attached" : "detached", static_cast<long long>(s.grace_ms),
           static_cast<long long>(age_s < 0 ? 0 : age_s),
           static_cast<long long>(detached_ms < 0 ? 0 : detached_ms), keys,
           static_cast<unsigned long long>(s.resumes));
  return buf;
}

}  // namespace redistp
