// Repr (util/repr.h): the sdscatrepr form MONITOR, the crash report, CONFIG REWRITE and the AOF
// manifest print (its round trip through the config reader is in config_test.cc).
#include "util/repr.h"

#include <gtest/gtest.h>

#include <string>

namespace redistp {
namespace {

TEST(Repr, EscapesAsSdscatrepr) {
  EXPECT_EQ(Repr(""), "\"\"");
  EXPECT_EQ(Repr("plain text ~"), "\"plain text ~\"");
  EXPECT_EQ(Repr("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(Repr("\n\r\t\a\b"), "\"\\n\\r\\t\\a\\b\"");
  EXPECT_EQ(Repr(std::string("\0\x1f\x7f\x80\xff", 5)), "\"\\x00\\x1f\\x7f\\x80\\xff\"");
}

TEST(Repr, AppendsAfterWhatIsThere) {
  std::string line = "+1.000000 [0 127.0.0.1:1]";
  line.push_back(' ');
  AppendRepr(&line, "set");
  EXPECT_EQ(line, "+1.000000 [0 127.0.0.1:1] \"set\"");
}

}  // namespace
}  // namespace redistp
