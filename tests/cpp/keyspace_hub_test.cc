// Unit tests for KeyspaceHub: listeners are called in rank order, then registration order; a
// listener switched off (SetEnabled) is skipped but keeps its place when switched back on; an
// unsubscribed one is gone.
#include "server/keyspace_hub.h"

#include <gtest/gtest.h>

#include <string>

namespace redistp {
namespace {

class NamedListener : public KeyspaceListener {
 public:
  NamedListener(char name, std::string* log) : name_(name), log_(log) {}
  void OnKeyEvent(const KeyEvent&) override { log_->push_back(name_); }
  void OnFlush(Database&) override { log_->push_back(name_); }
  void OnSwap(Database&, Database&) override { log_->push_back(name_); }

 private:
  char name_;
  std::string* log_;
};

TEST(KeyspaceHubTest, DisabledListenersAreSkippedAndKeepTheirPlace) {
  std::string log;
  NamedListener a('a', &log), b('b', &log), c('c', &log);
  KeyspaceHub hub;
  hub.Subscribe(&a);
  hub.Subscribe(&b, false);
  hub.Subscribe(&c);
  KeyEvent ev{};
  hub.OnKeyEvent(ev);
  EXPECT_EQ(log, "ac");
  hub.SetEnabled(&b, true);
  hub.SetEnabled(&b, true);  // already on: nothing changes
  log.clear();
  hub.OnKeyEvent(ev);
  EXPECT_EQ(log, "abc");
  hub.SetEnabled(&a, false);
  log.clear();
  hub.OnKeyEvent(ev);
  EXPECT_EQ(log, "bc");
  hub.SetEnabled(&a, true);
  hub.SetEnabled(&c, false);
  log.clear();
  hub.OnKeyEvent(ev);
  EXPECT_EQ(log, "ab");
  NamedListener stranger('x', &log);
  hub.SetEnabled(&stranger, true);  // never subscribed: ignored
  log.clear();
  hub.OnKeyEvent(ev);
  EXPECT_EQ(log, "ab");
}

TEST(KeyspaceHubTest, RankOrdersBeforeSubscriptionAndUnsubscribeRemoves) {
  std::string log;
  NamedListener a('a', &log), b('b', &log), c('c', &log), d('d', &log);
  KeyspaceHub hub;
  hub.Subscribe(&c, true, 2);
  hub.Subscribe(&b, true, 1);
  hub.Subscribe(&a);            // rank 0: before both, though subscribed last
  hub.Subscribe(&d, false, 1);  // same rank as b: after it
  KeyEvent ev{};
  hub.OnKeyEvent(ev);
  EXPECT_EQ(log, "abc");
  hub.SetEnabled(&d, true);
  log.clear();
  hub.OnKeyEvent(ev);
  EXPECT_EQ(log, "abdc");
  hub.Unsubscribe(&b);
  hub.Unsubscribe(&b);  // gone already: nothing changes
  log.clear();
  hub.OnKeyEvent(ev);
  EXPECT_EQ(log, "adc");
}

}  // namespace
}  // namespace redistp
