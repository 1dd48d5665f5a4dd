// Unit tests for WatchexPublisher::ParseChannel: which channel names are existence-event
// channels, and the database and key they name. One spelling per database (no sign, no leading
// zero), keys of any bytes.
#include "server/watchex_pubsub.h"

#include <gtest/gtest.h>

#include <string>

namespace redistp {
namespace {

TEST(WatchexChannelTest, ParsesTheDatabaseAndTheKey) {
  int db = -1;
  std::string_view key;
  ASSERT_TRUE(WatchexPublisher::ParseChannel("__watchex@0__:lock", &db, &key));
  EXPECT_EQ(db, 0);
  EXPECT_EQ(key, "lock");
  ASSERT_TRUE(WatchexPublisher::ParseChannel("__watchex@15__:jobs:__:x", &db, &key));
  EXPECT_EQ(db, 15);
  EXPECT_EQ(key, "jobs:__:x");  // the first "__:" ends the database
  ASSERT_TRUE(WatchexPublisher::ParseChannel("__watchex@3__:", &db, &key));
  EXPECT_EQ(db, 3);
  EXPECT_EQ(key, "");
  std::string binary("__watchex@1__:a\0b", 17);
  ASSERT_TRUE(WatchexPublisher::ParseChannel(binary, &db, &key));
  EXPECT_EQ(key, std::string_view("a\0b", 3));
}

TEST(WatchexChannelTest, RejectsOtherNames) {
  int db = -1;
  std::string_view key;
  for (const char* name :
       {"", "__watchex@", "__watchex@__:k", "__watchex@01__:k", "__watchex@-1__:k",
        "__watchex@+1__:k", "__watchex@1_:k", "__watchex@1__k", "__watchex@1:k", "__watchex@a__:k",
        "__watchex@1234567890__:k", "__keyspace@0__:k", "_watchex@0__:k", "__WATCHEX@0__:k"}) {
    EXPECT_FALSE(WatchexPublisher::ParseChannel(name, &db, &key)) << name;
  }
  EXPECT_EQ(db, -1);
}

}  // namespace
}  // namespace redistp
