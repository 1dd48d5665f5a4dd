// LOLWUT [VERSION v [n ...]]: a piece of computer art and the server's version.
//
// Model. Redis 7.0 answers each LOLWUT version with a drawing of its own, followed by a caption
// line that ends in "Redis ver. <version>"; the default (7) and every version without a drawing
// is that line alone. redis-tp keeps the shapes and the version line, with drawings of its own:
//  * version 5: a field of square outlines that tumble and drift more the lower they are
//    (after Georg Nees' "Schotter"), drawn on a canvas of Braille characters (each character is
//    2x4 pixels). Arguments: columns (1..1000, default 66), squares per row and per column
//    (1..200, defaults 8 and 12).
//  * version 6: a night skyline in four shades of ANSI background colour, one cell per
//    character. Arguments: columns and rows (1..1000, defaults 80 and 20).
// The reply is a verbatim text; both drawings are random, as Redis's are.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "commands/register.h"
#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "server/server.h"
#include "server/version.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// A small xorshift generator: the drawings need variety, not quality.
class Dice {
 public:
  explicit Dice(uint64_t seed) : state_(seed | 1) {}
  uint64_t Next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  // Uniform in [-1, 1].
  double Signed() { return static_cast<double>(Next() % 2001) / 1000.0 - 1.0; }

 private:
  uint64_t state_;
};

// A monochrome pixel canvas rendered as Braille characters, 2 pixels wide and 4 high each.
class BrailleCanvas {
 public:
  BrailleCanvas(int width, int height)
      : width_(width), height_(height), pixels_(static_cast<size_t>(width) * height, false) {}

  void Set(int x, int y) {
    if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
    pixels_[static_cast<size_t>(y) * width_ + x] = true;
  }

  // Bresenham's line between two points.
  void Line(int x0, int y0, int x1, int y1) {
    const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
    const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
      Set(x0, y0);
      if (x0 == x1 && y0 == y1) break;
      const int e2 = 2 * err;
      if (e2 >= dy) {
        err += dy;
        x0 += sx;
      }
      if (e2 <= dx) {
        err += dx;
        y0 += sy;
      }
    }
  }

  // Each text line covers four pixel rows; a character's dots are numbered as Braille's.
  std::string Render() const {
    static constexpr int kDot[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
    std::string out;
    for (int y = 0; y < height_; y += 4) {
      for (int x = 0; x < width_; x += 2) {
        int code = 0;
        for (int dy = 0; dy < 4; ++dy) {
          for (int dx = 0; dx < 2; ++dx) {
            if (Get(x + dx, y + dy)) code |= kDot[dy][dx];
          }
        }
        const int cp = 0x2800 + code;  // three bytes of UTF-8
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      }
      out.push_back('\n');
    }
    return out;
  }

 private:
  bool Get(int x, int y) const {
    if (x >= width_ || y >= height_) return false;
    return pixels_[static_cast<size_t>(y) * width_ + x];
  }

  int width_, height_;
  std::vector<bool> pixels_;
};

std::string VersionLine() { return std::string("Redis ver. ") + kRedisVersion + "\n"; }

// Version 5: squares in a grid with a one-square margin, each rotated and shifted at random
// by an amount that grows with its row.
std::string DrawTumblingSquares(int cols, int per_row, int per_col, Dice& dice) {
  const int width = cols * 2;
  const int side = std::max(1, width / (per_row + 2));
  const int height = side * (per_col + 2);
  BrailleCanvas canvas(width, height);
  for (int row = 0; row < per_col; ++row) {
    const double disorder = per_col == 1 ? 0.0 : static_cast<double>(row) / (per_col - 1);
    for (int col = 0; col < per_row; ++col) {
      const double cx = side * (col + 1.5) + dice.Signed() * disorder * side * 0.25;
      const double cy = side * (row + 1.5) + dice.Signed() * disorder * side * 0.25;
      const double angle = dice.Signed() * disorder * 0.8;
      const double half = side / 2.0;
      int px[4], py[4];
      for (int k = 0; k < 4; ++k) {
        // Corners at (+-half, +-half) in the square's frame, turned by `angle`.
        const double ux = (k == 0 || k == 3) ? -half : half;
        const double uy = k < 2 ? -half : half;
        px[k] = static_cast<int>(std::lround(cx + ux * std::cos(angle) - uy * std::sin(angle)));
        py[k] = static_cast<int>(std::lround(cy + ux * std::sin(angle) + uy * std::cos(angle)));
      }
      for (int k = 0; k < 4; ++k) canvas.Line(px[k], py[k], px[(k + 1) % 4], py[(k + 1) % 4]);
    }
  }
  return canvas.Render() + "\nSquares tumbling down a page, after Georg Nees' Schotter (1968). " +
         VersionLine();
}

// Version 6: a skyline of random towers with lit windows under a sky of sparse stars.
std::string DrawSkyline(int cols, int rows, Dice& dice) {
  // Shades, darkest first: night sky, building, star, lit window.
  static constexpr const char* kShade[4] = {"\033[0;30;40m \033[0m", "\033[0;90;100m \033[0m",
                                            "\033[0;37;47m \033[0m", "\033[0;97;107m \033[0m"};
  std::vector<int> roof(static_cast<size_t>(cols));
  for (int x = 0; x < cols;) {
    const int width = 2 + static_cast<int>(dice.Next() % 6);
    const int tower =
        rows / 4 + static_cast<int>(dice.Next() % static_cast<uint64_t>(rows / 2 + 1));
    for (int i = 0; i < width && x < cols; ++i, ++x) roof[static_cast<size_t>(x)] = rows - tower;
  }
  std::string out;
  for (int y = 0; y < rows; ++y) {
    for (int x = 0; x < cols; ++x) {
      int shade;
      if (y < roof[static_cast<size_t>(x)]) {
        shade = dice.Next() % 23 == 0 ? 2 : 0;
      } else {
        shade = (x % 2 == 1 && y % 2 == 1 && dice.Next() % 3 == 0) ? 3 : 1;
      }
      out.append(kShade[shade]);
    }
    out.push_back('\n');
  }
  return out + "A city at night, one window at a time.\nDrawn for redis-tp. " + VersionLine();
}

// Reads the optional integer argument `index` into *value, clamped to [lo, hi].
bool OptionalInt(CommandContext& c, size_t index, int64_t lo, int64_t hi, int64_t* value) {
  if (index >= c.args.size()) return true;
  int64_t v;
  if (!ParseInt64(c.args[index], &v)) {
    c.reply.Error(err::kNotInteger);
    return false;
  }
  *value = std::clamp(v, lo, hi);
  return true;
}

void LolwutCommand(CommandContext& c) {
  int64_t version = 7;
  // Anything but "VERSION <n>" first is ignored, as Redis does.
  if (c.args.size() >= 3 && EqualsIgnoreCase(c.args[1], "version")) {
    if (!ParseInt64(c.args[2], &version)) {
      c.reply.Error(err::kNotInteger);
      return;
    }
  }
  Dice dice(static_cast<uint64_t>(c.server.NowUs()) * 0x9E3779B97F4A7C15ULL);
  if (version == 5) {
    int64_t cols = 66, per_row = 8, per_col = 12;
    if (!OptionalInt(c, 3, 1, 1000, &cols) || !OptionalInt(c, 4, 1, 200, &per_row) ||
        !OptionalInt(c, 5, 1, 200, &per_col)) {
      return;
    }
    c.reply.Verbatim(DrawTumblingSquares(static_cast<int>(cols), static_cast<int>(per_row),
                                         static_cast<int>(per_col), dice));
  } else if (version == 6) {
    int64_t cols = 80, rows = 20;
    if (!OptionalInt(c, 3, 1, 1000, &cols) || !OptionalInt(c, 4, 1, 1000, &rows)) return;
    c.reply.Verbatim(DrawSkyline(static_cast<int>(cols), static_cast<int>(rows), dice));
  } else {
    c.reply.Verbatim(VersionLine());
  }
}

}  // namespace

using docs::Integer;

void RegisterLolwutCommand(CommandTable& t) {
  t.Register({.name = "lolwut",
              .arity = -1,
              .flags = kCmdReadOnly | kCmdFast,
              .acl = kAclRead | kAclFast,
              .doc = {.summary = "Displays computer art and the Redis version",
                      .since = "5.0.0",
                      .group = "server",
                      .args = {Integer("version").Token("VERSION").Optional()}},
              .handler = LolwutCommand});
}

}  // namespace redistp
