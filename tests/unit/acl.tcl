# ACL: users and their rules, AUTH as a user, NOPERM for commands, keys and channels (also
# inside MULTI/EXEC and scripts), selectors, ACL LOG, DRYRUN, and the users' files.
# Every test passes on Redis 7.0 as well; the order of single commands in a described rule
# list is Redis's hash order there, so tests compare such lists only where one command is named.

proc acl_user_client {user pass} {
    set c [redis_client]
    $c auth $user $pass
    return $c
}

start_server {tags {acl}} {
    test {RESET of a connection authenticated as a user goes back to the default user} {
        r acl setuser resetme on >secret +@all
        set c [redis_client]
        $c auth resetme secret
        assert_equal resetme [$c acl whoami]
        assert_equal RESET [$c reset]
        assert_equal default [$c acl whoami]
        $c close
        r acl deluser resetme
    }

    test {The default user allows everything and needs no password} {
        assert_equal [r acl whoami] default
        assert_equal [r acl users] default
        assert_equal [r acl list] {{user default on nopass ~* &* +@all}}
    }

    test {ACL SETUSER creates a user that is off, without commands, keys or channels} {
        r acl setuser newbie
        assert_equal [r acl list] {{user default on nopass ~* &* +@all} {user newbie off resetchannels -@all}}
        set u [r acl getuser newbie]
        assert_equal [dict get $u flags] off
        assert_equal [dict get $u passwords] {}
        assert_equal [dict get $u commands] -@all
        assert_equal [dict get $u keys] {}
        assert_equal [dict get $u channels] {}
        assert_equal [dict get $u selectors] {}
        r acl deluser newbie
    }

    test {ACL GETUSER of an unknown user is a null} {
        assert_equal [r acl getuser nobody-here] {}
    }

    test {ACL SETUSER keeps passwords as SHA-256 hashes and removes them by clear text or hash} {
        r acl setuser pw on >first >second
        set h1 [lindex [dict get [r acl getuser pw] passwords] 0]
        assert_equal $h1 a7937b64b8caa58f03721bb6bacf5c78cb235febe0e70b1b84cd99541461a08e
        assert_equal [llength [dict get [r acl getuser pw] passwords]] 2
        r acl setuser pw <first
        assert_equal [llength [dict get [r acl getuser pw] passwords]] 1
        r acl setuser pw !16367aacb67a4a017c8da8ab95682ccb390863780f7114dda0a0e0c55644c7c4
        assert_equal [dict get [r acl getuser pw] passwords] {}
        r acl setuser pw #a7937b64b8caa58f03721bb6bacf5c78cb235febe0e70b1b84cd99541461a08e
        assert_equal [dict get [r acl getuser pw] passwords] $h1
        r acl setuser pw nopass
        assert_equal [dict get [r acl getuser pw] flags] {on nopass}
        assert_equal [dict get [r acl getuser pw] passwords] {}
        r acl setuser pw resetpass
        assert_equal [dict get [r acl getuser pw] flags] on
        r acl deluser pw
    }

    test {ACL SETUSER takes an empty rule as no change} {
        assert_equal OK [r acl setuser emptyrule ""]
        assert_equal {user emptyrule off resetchannels -@all} [lsearch -inline [r acl list] {user emptyrule *}]
        assert_equal OK [r acl setuser emptyrule "" on "" +get ""]
        assert_match {user emptyrule on * +get} [lsearch -inline [r acl list] {user emptyrule *}]
        r acl deluser emptyrule
    }

    test {ACL SETUSER names the bad rule and changes nothing} {
        r acl setuser keep on >x ~k*
        set before [r acl list]
        assert_error {ERR Error in ACL SETUSER modifier 'foo': Syntax error} {r acl setuser keep +get foo}
        assert_error {ERR Error in ACL SETUSER modifier '+nosuchcmd': Unknown command or category name in ACL} {r acl setuser keep +nosuchcmd}
        assert_error {ERR Error in ACL SETUSER modifier '+@nosuchcat': Unknown command or category name in ACL} {r acl setuser keep +@nosuchcat}
        assert_error {ERR Error in ACL SETUSER modifier '-get|x': Unknown command or category name in ACL} {r acl setuser keep -get|x}
        assert_error {ERR Error in ACL SETUSER modifier '+config|nosuch': Unknown command or category name in ACL} {r acl setuser keep +config|nosuch}
        assert_error {ERR Error in ACL SETUSER modifier '+config|get|x': Allowing first-arg of a subcommand is not supported} {r acl setuser keep +config|get|x}
        assert_error {ERR Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters} {r acl setuser keep #abc}
        assert_error {ERR Error in ACL SETUSER modifier '<never': The password you are trying to remove from the user does not exist} {r acl setuser keep <never}
        assert_error {ERR Error in ACL SETUSER modifier '%X~a': Syntax error} {r acl setuser keep %X~a}
        assert_error {ERR Error in ACL SETUSER modifier '%~a': Syntax error} {r acl setuser keep %~a}
        assert_error {ERR Error in ACL SETUSER modifier '~a': Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns} {r acl setuser keep allkeys ~a}
        assert_error {ERR Error in ACL SETUSER modifier '&a': Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels} {r acl setuser keep allchannels &a}
        assert_error {ERR Unmatched parenthesis in acl selector starting at '(+get'.} {r acl setuser keep (+get ~x}
        assert_error {ERR Error in ACL SETUSER modifier '(+get (~x))': Syntax error} {r acl setuser keep "(+get (~x))"}
        assert_error {ERR Usernames can't contain spaces or null characters} {r acl setuser "a b" on}
        assert_equal [r acl list] $before
        r acl deluser keep
    }

    test {Key patterns are described with their permissions, merged by pattern} {
        r acl setuser kp ~a* %R~b* %W~c* %RW~d* %R~e %W~e
        assert_equal [dict get [r acl getuser kp] keys] {~a* %R~b* %W~c* ~d* ~e}
        r acl setuser kp resetkeys %R~z
        assert_equal [dict get [r acl getuser kp] keys] {%R~z}
        r acl setuser kp allkeys
        assert_equal [dict get [r acl getuser kp] keys] {~*}
        r acl deluser kp
    }

    test {A %R or %RW rule without '~' is an empty pattern, in a selector too (Redis 7.0.15)} {
        r acl setuser ke on %R "(%RW +get)"
        assert_equal [dict get [r acl getuser ke] keys] {%R~}
        # %RW is read and write, described without flags.
        assert_equal {~} [dict get [lindex [dict get [r acl getuser ke] selectors] 0] keys]
        assert_equal {user ke on %R~ resetchannels -@all (~ resetchannels -@all +get)} \
            [lsearch -inline [r acl list] {user ke *}]
        # Without R or W it stays a syntax error.
        assert_error {*'%': Syntax error*} {r acl setuser ke %}
        assert_error {*'(%~x)': Syntax error*} {r acl setuser ke (%~x)}
        assert_error {*'%RX~*': Syntax error*} {r acl setuser ke %RX~*}
        r acl deluser ke
    }

    test {Command rules are described from what they allow} {
        r acl setuser cr +get +set -get
        assert_equal [dict get [r acl getuser cr] commands] {-@all +set}
        r acl setuser cr nocommands +config -config|get
        assert_equal [dict get [r acl getuser cr] commands] {-@all +config -config|get}
        r acl setuser cr nocommands +@hash -hset
        assert_equal [dict get [r acl getuser cr] commands] {-@all +@hash -hset}
        r acl setuser cr allcommands -@admin
        assert_equal [dict get [r acl getuser cr] commands] {+@all -@admin}
        r acl setuser cr nocommands +select|0 +select|1
        assert_equal [dict get [r acl getuser cr] commands] {-@all +select|0 +select|1}
        r acl setuser cr reset
        assert_equal [r acl getuser cr] {flags {off sanitize-payload} passwords {} commands -@all keys {} channels {} selectors {}}
        r acl deluser cr
    }

    test {Selectors are kept and described in parentheses} {
        r acl setuser sel on nopass +get ~r* (+set ~w*) "(+del ~d* &ch)"
        assert_equal [lsearch -inline [r acl list] {user sel *}] {user sel on nopass ~r* resetchannels -@all +get (~w* resetchannels -@all +set) (~d* resetchannels &ch -@all +del)}
        set s [dict get [r acl getuser sel] selectors]
        assert_equal [lindex $s 0] {commands {-@all +set} keys ~w* channels {}}
        r acl setuser sel clearselectors
        assert_equal [dict get [r acl getuser sel] selectors] {}
        r acl deluser sel
    }

    test {ACL USERS lists the names in order, ACL DELUSER counts what it removed} {
        r acl setuser zed
        r acl setuser amy
        assert_equal [r acl users] {amy default zed}
        assert_error {ERR The 'default' user cannot be removed} {r acl deluser amy default}
        assert_equal [r acl users] {amy default zed}
        assert_equal [r acl deluser amy nobody zed] 2
        assert_equal [r acl users] default
    }

    test {AUTH and HELLO AUTH with a user name} {
        r acl setuser alice on >wonder ~* &* +@all
        set c [redis_client]
        assert_equal [$c auth alice wonder] OK
        assert_equal [$c acl whoami] alice
        assert_error {WRONGPASS invalid username-password pair or user is disabled.} {$c auth alice wrong}
        assert_error {WRONGPASS invalid username-password pair or user is disabled.} {$c auth nobody x}
        assert_equal [$c acl whoami] alice
        set h [$c hello 2 auth default anything]
        assert_equal [dict get $h proto] 2
        assert_equal [$c acl whoami] default
        r acl setuser alice off
        assert_error {WRONGPASS invalid username-password pair or user is disabled.} {$c auth alice wonder}
        $c close
        r acl deluser alice
    }

    test {A user without any command may still AUTH and HELLO} {
        r acl setuser nothing on nopass nocommands
        set c [redis_client]
        assert_equal [$c auth nothing x] OK
        assert_error {NOPERM this user has no permissions to run the 'ping' command} {$c ping}
        assert_equal [dict get [$c hello 3] proto] 3
        $c close
        r acl deluser nothing
    }

    test {NOPERM for commands and subcommands} {
        r acl setuser limited on >pw ~* &* +@all -config|get -flushall
        set c [acl_user_client limited pw]
        assert_error {NOPERM this user has no permissions to run the 'config|get' command} {$c config get maxmemory}
        assert_error {NOPERM this user has no permissions to run the 'flushall' command} {$c flushall}
        assert_equal [$c set k v] OK
        $c close
        r acl deluser limited
    }

    test {First-argument rules allow one argument of a command} {
        r acl setuser onlyzero on nopass ~* +select|0
        set c [acl_user_client onlyzero x]
        assert_equal [$c select 0] OK
        assert_equal [$c select 0] OK
        assert_error {NOPERM this user has no permissions to run the 'select' command} {$c select 1}
        $c close
        r acl deluser onlyzero
    }

    test {NOPERM for keys follows the read and write permissions of each pattern} {
        r acl setuser keys on nopass +@all ~any* %R~ro* %W~wo*
        set c [acl_user_client keys x]
        assert_equal [$c set any1 v] OK
        assert_equal [$c get any1] v
        assert_equal [$c get ro1] {}
        assert_error {NOPERM this user has no permissions to access one of the keys used as arguments} {$c set ro1 v}
        assert_equal [$c set wo1 v] OK
        assert_error {NOPERM this user has no permissions to access one of the keys used as arguments} {$c get wo1}
        assert_error {NOPERM this user has no permissions to access one of the keys used as arguments} {$c get other}
        # COPY reads its source and writes its destination.
        assert_equal [$c copy any1 wo2] 1
        assert_error {NOPERM this user has no permissions to access one of the keys used as arguments} {$c copy wo1 any2}
        $c close
        r acl deluser keys
    }

    test {NOPERM for channels: PUBLISH, SUBSCRIBE and literal PSUBSCRIBE patterns} {
        r acl setuser chans on nopass +@all ~* &news.* &exact
        set c [acl_user_client chans x]
        assert_equal [$c publish news.a hi] 0
        assert_error {NOPERM this user has no permissions to access one of the channels used as arguments} {$c publish other hi}
        set rd [redis_deferring_client]
        $rd auth chans x
        $rd read
        $rd subscribe news.b exact
        assert_equal [$rd read] {subscribe news.b 1}
        assert_equal [$rd read] {subscribe exact 2}
        $rd subscribe zzz
        assert_error {NOPERM this user has no permissions to access one of the channels used as arguments} {$rd read}
        # A pattern must be granted as the same pattern, not matched by one.
        $rd psubscribe news.*
        assert_equal [$rd read] {psubscribe news.* 3}
        $rd psubscribe news.a*
        assert_error {NOPERM this user has no permissions to access one of the channels used as arguments} {$rd read}
        $rd close
        $c close
        r acl deluser chans
    }

    test {Selectors: a command runs when any one selector allows it whole} {
        r acl setuser selu on nopass +get ~r* (+set ~w*)
        set c [acl_user_client selu x]
        assert_equal [$c set w1 v] OK
        assert_equal [$c get r1] {}
        assert_error {NOPERM this user has no permissions to access one of the keys used as arguments} {$c get w1}
        assert_error {NOPERM this user has no permissions to access one of the keys used as arguments} {$c set r1 v}
        assert_error {NOPERM this user has no permissions to run the 'del' command} {$c del r1}
        $c close
        r acl deluser selu
    }

    test {ACL DRYRUN judges without running} {
        r acl setuser dry on nopass +get +publish ~k* &c* (+set ~x*)
        assert_equal [r acl dryrun dry get k1] OK
        assert_equal [r acl dryrun dry set x1 v] OK
        assert_equal [r acl dryrun dry get zz] {This user has no permissions to access the 'zz' key}
        assert_equal [r acl dryrun dry set zz v] {This user has no permissions to access the 'zz' key}
        assert_equal [r acl dryrun dry config get x] {This user has no permissions to run the 'config|get' command}
        assert_equal [r acl dryrun dry publish zz m] {This user has no permissions to access the 'zz' channel}
        assert_error {ERR User 'nobody' not found} {r acl dryrun nobody get k}
        assert_error {ERR Command 'nosuch' not found} {r acl dryrun dry nosuch}
        assert_error {ERR wrong number of arguments for 'get' command} {r acl dryrun dry get}
        assert_equal [r get x1] {}
        r acl deluser dry
    }

    test {ACL LOG records refusals and failed logins, grouping repeats} {
        r acl log reset
        r acl setuser logged on >pw ~k* +get
        set c [acl_user_client logged pw]
        catch {$c get other}
        catch {$c get other}
        catch {$c set k v}
        catch {$c auth logged wrong}
        set log [r acl log]
        assert_equal [llength $log] 3
        set auth [lindex $log 0]
        assert_equal [dict get $auth reason] auth
        assert_equal [dict get $auth context] toplevel
        assert_equal [dict get $auth object] auth
        assert_equal [dict get $auth username] logged
        set cmd [lindex $log 1]
        assert_equal [dict get $cmd reason] command
        assert_equal [dict get $cmd object] set
        set key [lindex $log 2]
        assert_equal [dict get $key reason] key
        assert_equal [dict get $key object] other
        assert_equal [dict get $key count] 2
        assert_match {*cmd=get user=logged*} [dict get $key client-info]
        assert {[dict get $key age-seconds] >= 0}
        assert_equal [llength [r acl log 1]] 1
        assert_equal [r acl log -1] {}
        assert_error {ERR value is not an integer or out of range} {r acl log x}
        assert_equal [r acl log reset] OK
        assert_equal [r acl log] {}
        $c close
        r acl deluser logged
    }

    test {ACL LOG keeps at most acllog-max-len entries} {
        r acl log reset
        r config set acllog-max-len 2
        r acl setuser lm on nopass
        set c [acl_user_client lm x]
        foreach cmd {get set del incr} { catch {$c $cmd k} }
        assert_equal [llength [r acl log]] 2
        assert_equal [dict get [lindex [r acl log] 0] object] incr
        r config set acllog-max-len 128
        $c close
        r acl deluser lm
        r acl log reset
    }

    test {MULTI: NOPERM when queued, and at EXEC when the rules changed since} {
        r acl setuser tx on nopass +@all ~ok*
        set c [acl_user_client tx x]
        $c multi
        assert_error {NOPERM this user has no permissions to access one of the keys used as arguments} {$c set bad v}
        assert_error {EXECABORT*} {$c exec}
        $c multi
        $c set ok1 v
        $c get ok1
        r acl setuser tx -get
        set res [$c exec]
        assert_equal [lindex $res 0] OK
        assert_match {NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: no permission to execute the command or subcommand} [lindex $res 1]
        set entry [lindex [r acl log 1] 0]
        assert_equal [dict get $entry context] multi
        $c close
        r acl deluser tx
    }

    test {Scripts run as their caller's user, with the script's refusal texts} {
        r acl setuser scr on nopass +@all -get ~k* &c*
        set c [acl_user_client scr x]
        assert_error {ERR The user executing the script can't run this command or subcommand script:*} {$c eval {return redis.call('get','k')} 0}
        assert_error {ERR The user executing the script can't access at least one of the keys mentioned in the command arguments script:*} {$c eval {return redis.call('set','zz','v')} 0}
        assert_error {ERR The user executing the script can't publish to the channel mentioned in the command script:*} {$c eval {return redis.call('publish','zz','v')} 0}
        assert_equal [$c eval {return redis.pcall('set','zz','v')['err']} 0] {ERR The user executing the script can't access at least one of the keys mentioned in the command arguments}
        assert_equal [$c eval {return redis.call('set','k1','v')} 0] OK
        assert_equal [dict get [lindex [r acl log 1] 0] context] lua
        $c close
        r acl deluser scr
    }

    test {CLIENT LIST shows the user; CLIENT KILL USER ends its connections} {
        r acl setuser victim on nopass +@all ~*
        set c1 [acl_user_client victim x]
        set c2 [acl_user_client victim x]
        assert_match {*user=victim*} [$c1 client info]
        assert_match {*user=default*} [r client info]
        assert_error {ERR No such user 'nobody'} {r client kill user nobody}
        assert_equal [r client kill user victim] 2
        assert_error {*I/O error*} {$c1 ping}
        $c1 close
        $c2 close
        r acl deluser victim
    }

    test {Deleting a user ends its connections} {
        r acl setuser gone on nopass +@all ~*
        set c [acl_user_client gone x]
        assert_equal [$c ping] PONG
        assert_equal [r acl deluser gone] 1
        assert_error {*I/O error*} {$c ping}
        $c close
    }

    test {Taking a channel away ends the connections subscribed to it} {
        r acl setuser sub on nopass +@all ~* &a &b
        set rd [redis_deferring_client]
        $rd auth sub x
        $rd read
        $rd subscribe a
        $rd read
        set before [s connected_clients]
        r acl setuser sub resetchannels &b
        wait_for_condition 50 100 {
            [s connected_clients] == $before - 1
        } else {
            fail "the subscriber was not disconnected"
        }
        $rd close
        r acl deluser sub
    }

    test {ACL CAT lists the categories and the commands of one} {
        assert_equal [llength [r acl cat]] 21
        assert_equal [lindex [r acl cat] 0] keyspace
        assert {[lsearch [r acl cat hash] hset] >= 0}
        assert {[lsearch [r acl cat admin] config|set] >= 0}
        assert {[lsearch [r acl cat read] set] < 0}
        assert_error {ERR Unknown category 'nosuch'} {r acl cat nosuch}
    }

    test {ACL GENPASS returns hex digits for the bits asked} {
        assert_equal [string length [r acl genpass]] 64
        assert_equal [string length [r acl genpass 5]] 2
        assert_equal [string length [r acl genpass 4096]] 1024
        assert_match {[0-9a-f]*} [r acl genpass]
        assert_error {ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096} {r acl genpass 0}
        assert_error {ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096} {r acl genpass 4097}
        assert_error {ERR value is not an integer or out of range} {r acl genpass x}
    }

    test {ACL CAT, GENPASS and LOG with too many arguments, and a long category name} {
        assert_error {ERR unknown subcommand or wrong number of arguments for 'cat'. Try ACL HELP.} {r acl cat a b}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'GENPASS'. Try ACL HELP.} {r acl GENPASS 1 2}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'log'. Try ACL HELP.} {r acl log reset x}
        # The name is cut at 128 bytes in the error.
        set e ""
        catch {r acl cat [string repeat x 200]} e
        assert_equal "ERR Unknown category '[string repeat x 128]'" $e
    }

    test {ACL LOAD and SAVE need an aclfile} {
        assert_error {ERR This Redis instance is not configured to use an ACL file.*} {r acl load}
        assert_error {ERR This Redis instance is not configured to use an ACL file.*} {r acl save}
    }

    test {Unknown ACL subcommand} {
        assert_error {ERR unknown subcommand 'nosuch'. Try ACL HELP.} {r acl nosuch}
    }
}

start_server {tags {acl external:skip} overrides {requirepass secret}} {
    test {requirepass is the default user's password} {
        set c [redis_client]
        assert_error {NOAUTH*} {$c ping}
        assert_equal [$c auth default secret] OK
        assert_equal [lindex [$c acl list] 0] {user default on #2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b ~* &* +@all}
        $c config set requirepass ""
        assert_equal [lindex [$c acl list] 0] {user default on nopass ~* &* +@all}
        set c2 [redis_client]
        assert_equal [$c2 ping] PONG
        $c2 close
        $c config set requirepass secret
        $c close
    }

    test {Removing the password lets connections already open in; HELLO still needs AUTH} {
        set c [redis_client]
        $c auth default secret
        set waiting [redis_client]
        assert_error {NOAUTH*} {$waiting ping}
        $c config set requirepass ""
        # The rule is read at each command, as Redis reads it: no reconnection needed.
        assert_equal PONG [$waiting ping]
        assert_equal default [$waiting acl whoami]
        # More than 10 arguments: the limits of unauthenticated connections are lifted too.
        assert_equal 0 [$waiting del a b c d e f g h i j k]
        # HELLO asks whether this connection authenticated, not whether it must (as in Redis).
        assert_error {NOAUTH HELLO must be called*} {$waiting hello 2}
        $c config set requirepass secret
        assert_error {NOAUTH*} {$waiting ping}
        $waiting close
        $c close
    }
}

start_server {tags {acl external:skip} overrides {user {alice on >pw ~a* +get}}} {
    test {user lines of the config file create users, CONFIG REWRITE keeps them} {
        assert_equal [r acl users] {alice default}
        set c [acl_user_client alice pw]
        assert_error {NOPERM*} {$c set a1 v}
        $c close
        r acl setuser bob on nopass +ping
        r config rewrite
        set f [open [srv config_file] r]
        set lines [split [read $f] "\n"]
        close $f
        assert {[lsearch -exact $lines {user bob on nopass resetchannels -@all +ping}] >= 0}
        assert {[lsearch -exact $lines {user alice on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~a* resetchannels -@all +get}] >= 0}
        assert {[lsearch -exact $lines {user default on nopass ~* &* +@all}] >= 0}
    }
}

set aclfile_dir [::server::new_dir]
file mkdir $aclfile_dir
set aclfile [file join $aclfile_dir users.acl]
set f [open $aclfile w]
puts $f "user alice on >pw ~* +@all"
puts $f "user bob off"
close $f
start_server [list tags {acl external:skip} overrides [list aclfile $aclfile]] {
    test {Users come from the aclfile; ACL SAVE and LOAD write and read it} {
        assert_equal [r acl users] {alice bob default}
        set c [acl_user_client alice pw]
        r acl setuser carl on nopass +ping
        assert_equal [r acl save] OK
        set f [open $aclfile r]
        set text [read $f]
        close $f
        assert_match "*user carl on nopass resetchannels -@all +ping*" $text
        # LOAD replaces the users and ends the connections of the replaced ones.
        set f [open $aclfile w]
        puts $f "user dave on nopass +ping"
        close $f
        assert_equal [r acl load] OK
        assert_equal [r acl users] {dave default}
        assert_error {*I/O error*} {$c ping}
        $c close
    }

    test {ACL LOAD with errors names each line and changes nothing} {
        set f [open $aclfile w]
        puts $f "user erin on +nosuch"
        puts $f "notauser x"
        close $f
        assert_error "ERR $aclfile:1: Error in applying operation '+nosuch': Unknown command or category name in ACL. $aclfile:2 should start with user keyword followed by the username. WARNING: ACL errors detected, no change to the previously active ACL rules was performed" {r acl load}
        set f [open $aclfile w]
        puts $f "user erin on"
        puts $f "user erin off"
        close $f
        assert_error {ERR WARNING: Duplicate user 'erin' found on line 2. WARNING: ACL errors detected, no change to the previously active ACL rules was performed} {r acl load}
        assert_equal [r acl users] {dave default}
    }
}

start_server {tags {acl}} {
    test {SORT BY and GET patterns need a user that may read every key} {
        r acl setuser sorter on nopass +@all ~k*
        r rpush k1 2 1
        set c [acl_user_client sorter x]
        assert_equal [$c sort k1] {1 2}
        assert_equal [$c sort k1 by nosort] {2 1}
        assert_error {ERR BY option of SORT denied due to insufficient ACL permissions.} {$c sort k1 by w*}
        assert_error {ERR GET option of SORT denied due to insufficient ACL permissions.} {$c sort k1 get #}
        assert_error {ERR GET option of SORT denied due to insufficient ACL permissions.} {$c sort_ro k1 get w*}
        r acl setuser sorter allkeys
        assert_equal [$c sort k1 get #] {1 2}
        $c close
        r acl deluser sorter
    }
}

start_server {tags {acl redistp}} {
    test {WATCHEX needs read access to each key, and so do its channels} {
        r acl setuser watcher on nopass +@all %R~r* %W~w* &*
        set c [acl_user_client watcher x]
        assert_equal [$c watchex r1] NOEXIST
        assert_error {NOPERM this user has no permissions to access one of the keys used as arguments} {$c watchex w1}
        assert_error {NOPERM this user has no permissions to access one of the keys used as arguments} {$c watchex r2 w2}
        assert_equal [r acl dryrun watcher subscribe __watchex@0__:r1] OK
        assert_equal [r acl dryrun watcher subscribe __watchex@0__:w1] {This user has no permissions to access the '__watchex@0__:w1' channel}
        assert_equal [r acl dryrun watcher psubscribe __watchex@0__:*] {This user has no permissions to access the '__watchex@0__:*' channel}
        assert_equal [r acl dryrun watcher psubscribe news.*] OK
        $c close
        r acl deluser watcher
    }

    test {SESSION RESUME works only for the user that opened the session} {
        r acl setuser s1 on nopass +@all ~*
        r acl setuser s2 on nopass +@all ~*
        set a [acl_user_client s1 x]
        set token [$a session open 60000]
        $a close
        set b [acl_user_client s2 x]
        assert_error {ERR invalid or expired session token} {$b session resume $token}
        set a2 [acl_user_client s1 x]
        assert_equal [$a2 session resume $token] OK
        $a2 session close
        $a2 close
        $b close
        r acl deluser s1 s2
    }
}
