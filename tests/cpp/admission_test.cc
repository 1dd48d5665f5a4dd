// The admission gate's ACL slot (server/authorizer.h, server/admission.h), with a scripted
// Authorizer standing in for the ACL layer:
//   - no authorizer: everything allowed;
//   - who is asked: a connection's own commands (kClient, also while MULTI queues them), each
//     command EXEC runs (kExec, with the rules of EXEC time) and each redis.call (kScript, the
//     caller as principal); never an unauthenticated connection (NOAUTH comes first);
//   - the texts: NOPERM at top level (command, key, channel), Redis's EXEC-time NOPERM, the
//     script's ERR texts; a denial inside MULTI fails EXEC with EXECABORT;
//   - the order: arity before ACL, ACL before the state checks (OOM here).
#include "server/admission.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "harness.h"

namespace redistp::testing {
namespace {

// Denies what it is told to, and remembers every call it was asked about.
class FakeAuthorizer : public Authorizer {
 public:
  struct Asked {
    std::string command;
    AdmissionCaller caller;
    uint64_t principal_id;
  };
  std::optional<AclDenial> Check(const AdmissionCall& call) override {
    asked.push_back({call.spec.full_name, call.caller, call.principal.id});
    if (call.spec.full_name == deny_command) return AclDenial{AclDenial::Reason::kCommand, 0};
    for (size_t i = 1; i < call.args.size(); ++i) {
      if (call.args[i] == deny_key) return AclDenial{AclDenial::Reason::kKey, static_cast<int>(i)};
      if (call.args[i] == deny_channel) {
        return AclDenial{AclDenial::Reason::kChannel, static_cast<int>(i)};
      }
    }
    return std::nullopt;
  }
  bool DefaultUserAuthenticates() const override { return default_authenticates; }
  std::string_view UserName(const Client&) const override { return "default"; }
  bool default_authenticates = true;  // the default user has no password
  std::string deny_command = "get";
  std::string deny_key = "secret";
  std::string deny_channel = "hidden";
  std::vector<Asked> asked;
};

TEST(Admission, NoAuthorizerAllowsEverything) {
  Harness h;
  EXPECT_EQ(h.server().authorizer(), nullptr);
  EXPECT_EQ(h.Run("a", {"SET", "secret", "1"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"GET", "secret"}).Text(), "\"1\"");
}

TEST(Admission, TopLevelDenialsGetNoPermTexts) {
  Harness h;
  FakeAuthorizer acl;
  h.server().set_authorizer(&acl);
  EXPECT_EQ(h.Run("a", {"GET", "k"}).Text(),
            "(error) NOPERM this user has no permissions to run the 'get' command");
  EXPECT_EQ(h.Run("a", {"SET", "secret", "1"}).Text(),
            "(error) NOPERM this user has no permissions to access one of the keys used as "
            "arguments");
  EXPECT_EQ(h.Run("a", {"PUBLISH", "hidden", "m"}).Text(),
            "(error) NOPERM this user has no permissions to access one of the channels used as "
            "arguments");
  acl.deny_command = "config|get";
  EXPECT_EQ(h.Run("a", {"CONFIG", "GET", "maxmemory"}).Text(),
            "(error) NOPERM this user has no permissions to run the 'config|get' command");
  EXPECT_EQ(h.Run("a", {"SET", "k", "1"}).Text(), "OK");
  ASSERT_FALSE(acl.asked.empty());
  EXPECT_EQ(acl.asked.back().caller, AdmissionCaller::kClient);
  EXPECT_EQ(acl.asked.back().principal_id, h.client("a")->id);
  // A refusal is a rejected call, not a call.
  const CommandSpec* set = h.server().commands().Find("set");
  EXPECT_EQ(set->stats.rejected_calls, 1u);
  h.server().set_authorizer(nullptr);
}

TEST(Admission, ArityAndAuthenticationComeBeforeTheAuthorizer) {
  Config config;
  config.requirepass = "pw";
  Harness h(config);
  FakeAuthorizer acl;
  acl.default_authenticates = false;  // requirepass: a new connection must AUTH
  h.server().set_authorizer(&acl);
  EXPECT_EQ(h.Run("a", {"GET", "k"}).Text(), "(error) NOAUTH Authentication required.");
  EXPECT_TRUE(acl.asked.empty());
  EXPECT_EQ(h.Run("a", {"AUTH", "pw"}).Text(), "OK");
  acl.asked.clear();
  EXPECT_EQ(h.Run("a", {"GET"}).Text(), "(error) ERR wrong number of arguments for 'get' command");
  EXPECT_TRUE(acl.asked.empty());
  h.server().set_authorizer(nullptr);
}

TEST(Admission, DenialWhileQueueingFailsTheTransaction) {
  Harness h;
  FakeAuthorizer acl;
  h.server().set_authorizer(&acl);
  EXPECT_EQ(h.Run("a", {"MULTI"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"SET", "k", "1"}).Text(), "QUEUED");
  EXPECT_EQ(h.Run("a", {"GET", "k"}).Text(),
            "(error) NOPERM this user has no permissions to run the 'get' command");
  EXPECT_EQ(acl.asked.back().caller, AdmissionCaller::kClient);
  EXPECT_EQ(h.Run("a", {"EXEC"}).Text(),
            "(error) EXECABORT Transaction discarded because of previous errors.");
  EXPECT_EQ(h.Run("a", {"EXISTS", "k"}).Text(), "(integer) 0");
  h.server().set_authorizer(nullptr);
}

TEST(Admission, ExecAsksAgainForEachQueuedCommand) {
  Harness h;
  FakeAuthorizer acl;
  acl.deny_command.clear();
  acl.deny_key.clear();
  acl.deny_channel.clear();
  h.server().set_authorizer(&acl);
  EXPECT_EQ(h.Run("a", {"MULTI"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"SET", "k", "1"}).Text(), "QUEUED");
  EXPECT_EQ(h.Run("a", {"GET", "k"}).Text(), "QUEUED");
  EXPECT_EQ(h.Run("a", {"SET", "secret", "1"}).Text(), "QUEUED");
  EXPECT_EQ(h.Run("a", {"PUBLISH", "hidden", "m"}).Text(), "QUEUED");
  EXPECT_EQ(h.Run("a", {"PING"}).Text(), "QUEUED");
  // The rules change between queueing and EXEC.
  acl.deny_command = "get";
  acl.deny_key = "secret";
  acl.deny_channel = "hidden";
  acl.asked.clear();
  const std::string prefix =
      "(error) NOPERM ACLs rules changed between the moment the transaction was accumulated "
      "and the EXEC call. This command is no longer allowed for the following reason: ";
  EXPECT_EQ(h.Run("a", {"EXEC"}).Text(),
            "[OK, " + prefix + "no permission to execute the command or subcommand, " + prefix +
                "no permission to touch the specified keys, " + prefix +
                "no permission to access one of the channels used as arguments, PONG]");
  // Once for EXEC itself, then once per queued command.
  ASSERT_EQ(acl.asked.size(), 6u);
  EXPECT_EQ(acl.asked[0].command, "exec");
  EXPECT_EQ(acl.asked[0].caller, AdmissionCaller::kClient);
  for (size_t i = 1; i < acl.asked.size(); ++i) {
    EXPECT_EQ(acl.asked[i].caller, AdmissionCaller::kExec);
  }
  EXPECT_EQ(h.Run("a", {"EXISTS", "secret"}).Text(),
            "(error) NOPERM this user has no "
            "permissions to access one of the keys "
            "used as arguments");
  h.server().set_authorizer(nullptr);
  EXPECT_EQ(h.Run("a", {"EXISTS", "secret", "k"}).Text(), "(integer) 1");
}

TEST(Admission, ScriptCallsAskForTheCallersUser) {
  Harness h;
  FakeAuthorizer acl;
  h.server().set_authorizer(&acl);
  EXPECT_EQ(h.Run("a", {"EVAL", "return redis.pcall('get', 'k')['err']", "0"}).Text(),
            "\"ERR The user executing the script can't run this command or subcommand\"");
  EXPECT_EQ(acl.asked.back().caller, AdmissionCaller::kScript);
  EXPECT_EQ(acl.asked.back().command, "get");
  EXPECT_EQ(acl.asked.back().principal_id, h.client("a")->id);
  EXPECT_EQ(h.Run("a", {"EVAL", "return redis.pcall('set', 'secret', 1)['err']", "0"}).Text(),
            "\"ERR The user executing the script can't access at least one of the keys "
            "mentioned in the command arguments\"");
  EXPECT_EQ(h.Run("a", {"EVAL", "return redis.pcall('publish', 'hidden', 1)['err']", "0"}).Text(),
            "\"ERR The user executing the script can't publish to the channel mentioned in the "
            "command\"");
  // A raised denial ends the script with the usual script error.
  const std::string e = h.Run("a", {"EVAL", "return redis.call('get', 'k')", "0"}).Text();
  EXPECT_EQ(e.rfind("(error) ERR The user executing the script can't run this command or "
                    "subcommand script: ",
                    0),
            0u)
      << e;
  h.server().set_authorizer(nullptr);
}

}  // namespace
}  // namespace redistp::testing
