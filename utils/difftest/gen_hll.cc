// The HyperLogLog family of the generator (see generator.h), on once our server has PFADD.
//
// An HLL is a string in Redis's documented layout: the `HYLL` magic, an encoding byte (0 dense,
// 1 sparse), three unused bytes, the cached cardinality (8 bytes, little endian, its top bit set
// when the cache is stale), then 16384 registers: 6 bits each when dense, run-length opcodes when
// sparse (ZERO 00xxxxxx, XZERO 01xxxxxx yyyyyyyy, VAL 1vvvvvxx). Every reply over HLLs is
// compared exactly, so estimates, the cache and the bytes GET shows must equal Redis's bit for
// bit. The shapes:
//   - PFADD of a few elements from a small pool (they collide), or a bulk of 100 to 2500 fresh
//     ones, so that a key grows from sparse past hll-sparse-max-bytes (3000 by default; the
//     aggregate family's CONFIG SET changes it now and then) to dense;
//   - PFCOUNT of one key (the cached cardinality) and of several (a merge, no cache), PFMERGE
//     with and without sources, PFDEBUG GETREG/DECODE/ENCODING/TODENSE and unknown subcommands;
//   - GET and STRLEN of HLL keys (the bytes themselves), and corruption: SETRANGE over the header,
//     the cache and the registers, APPEND, and SET of crafted values (valid and invalid sparse
//     opcode runs, dense register arrays of random content and of the wrong size, bad magic and
//     encodings, stale and valid caches), after which every command must refuse or accept alike;
//   - wrong types: the keys of the other families and the string keys now and then.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "generator.h"

using namespace std::string_literals;

namespace difftest {

namespace {

using Argv = std::vector<std::string>;

const std::vector<std::string> kHllKeys = {"hll:a", "hll:a", "hll:b", "hll:c", "hll:d"};
const std::vector<std::string> kHllElements = {"a", "b", "c", "foo",       "bar",  "",  "x y",
                                               "1", "2", "3", "\xff\x00"s, "elem", "A", "B"};

constexpr int kRegisters = 16384;
constexpr size_t kDenseBytes = kRegisters * 6 / 8;

}  // namespace

std::string Generator::HllKey() {
  uint64_t r = rng_.Below(100);
  if (r < 6) return Key();
  if (r < 9) return rng_.Pick(std::vector<std::string>{"agg:x", "z:a", "l:a", "x:a", "g:a"});
  return rng_.Pick(kHllKeys);
}

std::string Generator::HllElement() {
  uint64_t r = rng_.Below(100);
  if (r < 70) return rng_.Pick(kHllElements);
  if (r < 90) return "e" + std::to_string(rng_.Range(0, 400));
  return AnyValue();
}

// A value in the HLL layout, valid or not in one of the ways the essay lists.
std::string Generator::CraftedHll() {
  std::string h = "HYLL";
  uint64_t kind = rng_.Below(100);
  bool dense = kind >= 50 && kind < 80;
  h.push_back(dense ? '\0' : '\x01');
  h.append(3, '\0');
  // The cache: stale (the top bit of its last byte) or a valid cardinality PFCOUNT returns as is.
  if (rng_.Percent(50)) {
    h.append(7, '\0');
    h.push_back('\x80');
  } else {
    uint64_t card = rng_.Below(1ULL << (rng_.Percent(50) ? 12 : 40));
    for (int i = 0; i < 8; ++i) h.push_back(static_cast<char>((card >> (8 * i)) & 0xff));
  }
  if (kind < 35) {
    // Sparse opcodes covering exactly 16384 registers.
    int left = kRegisters;
    while (left > 0) {
      uint64_t op = rng_.Below(10);
      if (op < 3) {
        int len = static_cast<int>(std::min<long long>(left, rng_.Range(1, 64)));
        h.push_back(static_cast<char>(len - 1));
        left -= len;
      } else if (op < 5) {
        int len = static_cast<int>(std::min<long long>(left, rng_.Range(1, 3000)));
        h.push_back(static_cast<char>(0x40 | ((len - 1) >> 8)));
        h.push_back(static_cast<char>((len - 1) & 0xff));
        left -= len;
      } else {
        int len = static_cast<int>(std::min<long long>(left, rng_.Range(1, 4)));
        int val = static_cast<int>(rng_.Range(1, 32));
        h.push_back(static_cast<char>(0x80 | ((val - 1) << 2) | (len - 1)));
        left -= len;
      }
    }
  } else if (kind < 50) {
    // Sparse opcodes that do not add up: too few registers, too many, or a truncated XZERO.
    int n = static_cast<int>(rng_.Range(0, 12));
    for (int i = 0; i < n; ++i) h.push_back(static_cast<char>(rng_.Below(256)));
    if (rng_.Percent(50)) h += "\x7f\xff";
    if (rng_.Percent(30)) h.push_back('\x40');
  } else if (kind < 80) {
    // Dense registers of random content, mostly within a real HLL's range (<= 51), sometimes up
    // to 63; or of the wrong size.
    int top = rng_.Percent(80) ? 52 : 64;
    std::string regs(kDenseBytes, '\0');
    bool sparse_fill = rng_.Percent(50);
    for (int i = 0; i < kRegisters; ++i) {
      unsigned v = sparse_fill && !rng_.Percent(5) ? 0 : static_cast<unsigned>(rng_.Below(top));
      size_t bit = static_cast<size_t>(i) * 6;
      size_t byte = bit / 8;
      unsigned shift = bit % 8;
      regs[byte] = static_cast<char>(static_cast<unsigned char>(regs[byte]) | (v << shift));
      if (shift > 2 && byte + 1 < regs.size()) {
        regs[byte + 1] =
            static_cast<char>(static_cast<unsigned char>(regs[byte + 1]) | (v >> (8 - shift)));
      }
    }
    if (rng_.Percent(15)) regs.resize(regs.size() - static_cast<size_t>(rng_.Range(1, 100)));
    h += regs;
  } else if (kind < 90) {
    // The empty sparse HLL (one XZERO of 16384), as PFADD creates it.
    h += "\x7f\xff";
  } else {
    // A bad magic, an unknown encoding, or a header cut short.
    switch (rng_.Below(4)) {
      case 0:
        h[3] = 'X';
        break;
      case 1:
        h[4] = static_cast<char>(rng_.Range(2, 255));
        break;
      case 2:
        h.resize(static_cast<size_t>(rng_.Range(0, 15)));
        break;
      default:
        h += "\x7f\xff";
        h[1] = 'y';
        break;
    }
  }
  return h;
}

std::vector<std::string> Generator::HllCommand() {
  Argv a;
  std::string k = HllKey();
  switch (rng_.Below(36)) {
    case 30:  // adds outweigh the corruptions, so most keys stay valid HLLs
    case 31:
    case 32:
    case 33:
    case 34:
    case 35:
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 5: {
      a = {"PFADD", k};
      if (rng_.Percent(6)) {
        long long base = rng_.Range(0, 1000000);
        long long n = rng_.Range(100, 2500);
        for (long long i = 0; i < n; ++i) a.push_back("e" + std::to_string(base + i));
      } else {
        for (int i = 0, n = static_cast<int>(rng_.Range(0, 4)); i < n; ++i) {
          a.push_back(HllElement());
        }
      }
      break;
    }
    case 6:
    case 7:
    case 8:
    case 9:
      a = {"PFCOUNT", k};
      break;
    case 10:
    case 11:
      a = {"PFCOUNT", k};
      for (int i = 0, n = static_cast<int>(rng_.Range(1, 3)); i < n; ++i) a.push_back(HllKey());
      break;
    case 12:
    case 13:
      a = {"PFMERGE", k};
      for (int i = 0, n = static_cast<int>(rng_.Range(0, 3)); i < n; ++i) a.push_back(HllKey());
      break;
    case 14:
    case 15:
    case 16: {
      uint64_t r = rng_.Below(100);
      std::string sub = r < 30   ? "ENCODING"
                        : r < 55 ? "DECODE"
                        : r < 75 ? "TODENSE"
                        : r < 90 ? "GETREG"
                                 : rng_.Pick(std::vector<std::string>{"FOO", "", "SIMD", "help"});
      a = {"PFDEBUG", Token(sub), k};
      if (rng_.Percent(3)) a.push_back(HllElement());
      break;
    }
    case 17:
    case 18:
      a = {rng_.Percent(80) ? "GET" : "STRLEN", k};
      break;
    case 19:
    case 20:
    case 21: {
      // Corruption in place: the magic and encoding, the cache, the first registers or opcodes.
      uint64_t r = rng_.Below(100);
      long long offset = r < 20   ? rng_.Range(0, 7)
                         : r < 45 ? rng_.Range(8, 15)
                                  : rng_.Range(16, 40);
      std::string bytes(static_cast<size_t>(rng_.Range(1, 3)), '\0');
      for (auto& c : bytes) c = static_cast<char>(rng_.Below(256));
      a = {"SETRANGE", k, std::to_string(offset), bytes};
      break;
    }
    case 22:
      a = {"APPEND", k, rng_.Percent(50) ? "\x7f\xff"s : AnyValue()};
      break;
    case 23:
    case 24:
    case 25:
      a = {"SET", k, CraftedHll()};
      break;
    case 26:
      a = {"SET", k, rng_.Pick(std::vector<std::string>{"HYLL", "hello", "", "HYLL\x01"s})};
      break;
    case 27:
      a = {"DEL", k};
      break;
    case 28:
      a = {"PFCOUNT", k, k};
      break;
    default:
      a = {"COPY", k, HllKey(), Token("REPLACE")};
      break;
  }
  std::string name = a[0];
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!Has(name.c_str())) return {};
  return a;
}

// An HLL command; after a write, now and then the GET that shows the bytes it left.
void Generator::HllBlock(int conn, std::vector<Step>& out) {
  Argv a = HllCommand();
  if (a.empty()) a = StringFamily();
  std::string name = a[0];
  bool shows = (name == "PFADD" || name == "PFMERGE" || name == "SETRANGE") && rng_.Percent(25);
  std::string key = a.size() > 1 ? a[1] : "";
  if (rng_.Percent(5)) Mutate(a);
  out.push_back({conn, std::move(a)});
  if (shows) out.push_back({conn, {"GET", key}});
}

}  // namespace difftest
