// RESP2/RESP3 frame parsing for the load tool; see resp.h for the model.
#include "resp.h"

#include <charconv>
#include <cstdint>

namespace coordbench {
namespace {

// Nesting deeper than this is treated as a protocol error rather than recursed into.
constexpr int kMaxDepth = 32;

// Reads the CRLF-terminated line starting at `pos`. Returns false when no CRLF is buffered yet;
// otherwise sets `line` (without CRLF) and moves `pos` past the CRLF.
bool ReadLine(std::string_view data, size_t* pos, std::string_view* line) {
  size_t end = data.find("\r\n", *pos);
  if (end == std::string_view::npos) return false;
  *line = data.substr(*pos, end - *pos);
  *pos = end + 2;
  return true;
}

bool ToInt(std::string_view text, long long* value) {
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), last, *value);
  return ec == std::errc() && ptr == last;
}

enum class Step { kDone, kIncomplete, kError };

// Parses one frame at `*pos`, advancing `*pos` past it on kDone.
Step Parse(std::string_view data, size_t* pos, Frame* out, int depth) {
  if (depth > kMaxDepth) return Step::kError;
  if (*pos >= data.size()) return Step::kIncomplete;
  char type = data[*pos];
  size_t cursor = *pos + 1;
  std::string_view line;
  if (!ReadLine(data, &cursor, &line)) return Step::kIncomplete;
  out->type = type;
  out->text.clear();
  out->items.clear();
  out->null = false;
  switch (type) {
    case '+':
    case '-':
    case ':':
    case '#':
    case ',':
    case '(':
      out->text.assign(line);
      break;
    case '_':
      out->null = true;
      break;
    case '$':
    case '!':
    case '=': {
      long long len = 0;
      if (!ToInt(line, &len) || len < -1) return Step::kError;
      if (len == -1) {
        out->null = true;
        break;
      }
      if (data.size() - cursor < static_cast<size_t>(len) + 2) return Step::kIncomplete;
      if (data.compare(cursor + len, 2, "\r\n") != 0) return Step::kError;
      out->text.assign(data.substr(cursor, len));
      cursor += len + 2;
      break;
    }
    case '*':
    case '>':
    case '~':
    case '%':
    case '|': {
      long long count = 0;
      if (!ToInt(line, &count) || count < -1) return Step::kError;
      if (count == -1) {
        out->null = true;
        break;
      }
      if (type == '%' || type == '|') count *= 2;
      // Each element takes at least 3 bytes, so a count the buffer cannot hold is incomplete
      // without reserving memory for it first.
      if (static_cast<size_t>(count) > (data.size() - cursor) / 3 + 1) return Step::kIncomplete;
      out->items.resize(count);
      for (auto& item : out->items) {
        Step step = Parse(data, &cursor, &item, depth + 1);
        if (step != Step::kDone) return step;
      }
      if (type == '|') {
        // An attribute annotates the frame that follows it; the tool keeps only that frame.
        Frame next;
        Step step = Parse(data, &cursor, &next, depth + 1);
        if (step != Step::kDone) return step;
        *out = std::move(next);
      }
      break;
    }
    default:
      return Step::kError;
  }
  *pos = cursor;
  return Step::kDone;
}

}  // namespace

bool Frame::IsInteger(long long value) const {
  long long parsed = 0;
  return type == ':' && ToInt(text, &parsed) && parsed == value;
}

bool Frame::IsString(std::string_view value) const {
  return (type == '+' || type == '$') && !null && text == value;
}

std::string Frame::Describe() const {
  std::string out(1, type);
  if (null) {
    out += "(null)";
  } else if (items.empty()) {
    out += text;
  } else {
    out += "[";
    for (size_t i = 0; i < items.size() && out.size() < 200; ++i) {
      if (i > 0) out += " ";
      out += items[i].Describe();
    }
    out += "]";
  }
  if (out.size() > 200) out.resize(200);
  return out;
}

long ParseFrame(std::string_view data, Frame* out) {
  size_t pos = 0;
  switch (Parse(data, &pos, out, 0)) {
    case Step::kDone:
      return static_cast<long>(pos);
    case Step::kIncomplete:
      return 0;
    case Step::kError:
      break;
  }
  return -1;
}

bool IsPush(const Frame& frame) {
  if (frame.type == '>') return true;
  if (frame.type != '*' || frame.items.size() != 3) return false;
  return frame.items[0].IsString("watchex") || frame.items[0].IsString("message");
}

std::string_view PushEvent(const Frame& frame) {
  if (!IsPush(frame) || frame.items.size() != 3) return {};
  const Frame& kind = frame.items[0];
  if (!kind.IsString("watchex") && !kind.IsString("message")) return {};
  return frame.items[2].text;
}

std::string EncodeCommand(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const auto& arg : args) {
    out += "$" + std::to_string(arg.size()) + "\r\n";
    out += arg;
    out += "\r\n";
  }
  return out;
}

}  // namespace coordbench
