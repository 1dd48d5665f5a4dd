// The sdscatrepr-style quoting; the form is described in repr.h.
#include "util/repr.h"

namespace redistp {

void AppendRepr(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (unsigned char ch : s) {
    switch (ch) {
      case '\\':
        out->append("\\\\");
        break;
      case '"':
        out->append("\\\"");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\a':
        out->append("\\a");
        break;
      case '\b':
        out->append("\\b");
        break;
      default:
        if (ch >= 0x20 && ch < 0x7f) {
          out->push_back(static_cast<char>(ch));
        } else {
          const char escape[] = {'\\', 'x', kHex[ch >> 4], kHex[ch & 15]};
          out->append(escape, sizeof(escape));
        }
    }
  }
  out->push_back('"');
}

std::string Repr(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  AppendRepr(&out, s);
  return out;
}

}  // namespace redistp
