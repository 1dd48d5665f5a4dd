# ACL and the keys of a command line: which search the key checks use (the key specs, and the
# command's key procedure when the specs cannot say), what a failed AUTH in a transaction
# leaves in ACL LOG, and what happens to connections that hold something (a subscription, a
# WATCHEX watch) their user's rules no longer allow after ACL SETUSER or ACL LOAD.

# A new connection authenticated as `user` (any password: the tests' users are nopass), named
# `name` so CLIENT LIST can tell whether it is still open.
proc aclk_client {user name {deferring 0}} {
    if {$deferring} {
        set c [redis_deferring_client]
        $c auth $user x
        $c read
        $c client setname $name
        $c read
    } else {
        set c [redis_client]
        $c auth $user x
        $c client setname $name
    }
    return $c
}

proc aclk_open {name} {
    return [string match "* name=$name *" [r client list]]
}

proc aclk_wait_closed {name} {
    wait_for_condition 100 50 {![aclk_open $name]} else {
        fail "connection $name is still open"
    }
}

start_server {tags {acl}} {
    test {ACL key checks follow the key specs, and the key procedure when the specs cannot say} {
        r acl setuser kt on nopass +@all %R~r* %W~w* %RW~rw*
        set denied {This user has no permissions to access the '%s' key}
        foreach {line verdict} {
            {sort r1 store w1} OK
            {sort r1 store r2} r2
            {sort rw1 by r* store w1} OK
            {migrate h 1 {} 0 5 keys rw1 r1} r1
            {migrate h 1 {} 0 5 keys rw1 rw2} OK
            {xreadgroup group g c streams r1 0} OK
            {xreadgroup group g c streams w1 0} w1
            {georadius r1 1 2 3 m store w1} OK
            {georadius r1 1 2 3 m store r2} r2
            {georadius r1 1 2 3 m store r2 storedist w2} r2
            {lmove rw1 w1 left right} OK
            {lmove r1 w1 left right} r1
            {lmove rw1 r1 left right} r1
            {eval x 1 w1} w1
            {eval x 1 rw1} OK
            {zunionstore w1 1 r1 w2} OK
        } {
            set want [expr {$verdict eq "OK" ? "OK" : [format $denied $verdict]}]
            assert_equal $want [r acl dryrun kt {*}$line] $line
        }
        # A count the specs cannot read ("1e0", "1e3") sends the check to the key procedure,
        # whose keys carry no flags: any pattern naming them will do, read-only or write-only.
        assert_equal OK [r acl dryrun kt eval x 1e0 w1]
        assert_equal OK [r acl dryrun kt zunionstore w1 1e3 r1 w2]
        # A count of 0 names no key in either search.
        assert_equal OK [r acl dryrun kt zunionstore r1 0 w1]
        r acl deluser kt
    }

    test {A failed AUTH inside MULTI is logged in the multi context} {
        r acl setuser bob on >pw +@all ~*
        r acl log reset
        catch {r auth bob wrong}
        r multi
        r auth bob wrong
        set res [r exec]
        assert_match {WRONGPASS*} [lindex $res 0]
        set log [r acl log]
        assert_equal 2 [llength $log]
        set e [lindex $log 0]
        assert_equal {auth multi auth bob 1} [list [dict get $e reason] [dict get $e context] \
            [dict get $e object] [dict get $e username] [dict get $e count]]
        set e [lindex $log 1]
        assert_equal {auth toplevel auth bob 1} [list [dict get $e reason] [dict get $e context] \
            [dict get $e object] [dict get $e username] [dict get $e count]]
        # HELLO AUTH logs under the command name as sent, as AUTH does.
        r acl log reset
        catch {r hello 2 auth bob wrong}
        set e [lindex [r acl log] 0]
        assert_equal {auth toplevel hello bob} [list [dict get $e reason] [dict get $e context] \
            [dict get $e object] [dict get $e username]]
        r acl deluser bob
    }

    test {RESET returns an authenticated connection to the default user} {
        r acl setuser user1 on >secret +@all ~*
        set c [redis_client]
        assert_equal OK [$c auth user1 secret]
        assert_equal user1 [$c acl whoami]
        assert_equal RESET [$c reset]
        assert_equal default [$c acl whoami]
        $c close
        r acl deluser user1
    }

    test {ACL SETUSER closes the user's subscribers whose channel it takes away, and logs nothing} {
        r acl setuser psu on nopass +@all ~* resetchannels &ch*
        set a [aclk_client psu aclk-sub-a 1]
        set b [aclk_client psu aclk-sub-b 1]
        $a subscribe ch1
        assert_equal {subscribe ch1 1} [$a read]
        $b subscribe ch9
        assert_equal {subscribe ch9 1} [$b read]
        r acl log reset
        r acl setuser psu resetchannels &ch9
        aclk_wait_closed aclk-sub-a
        assert [aclk_open aclk-sub-b]
        assert_equal 0 [llength [r acl log]]
        $a close
        $b close
        r acl deluser psu
    }
}

set aclk_dir [::server::new_dir]
file mkdir $aclk_dir
set aclk_file [file join $aclk_dir users.acl]
set f [open $aclk_file w]
puts $f "user default on nopass ~* &* +@all"
close $f

start_server [list tags {acl external:skip} overrides [list aclfile $aclk_file]] {
    test {ACL LOAD leaves the default user's subscribers alone and closes other users' connections} {
        r acl setuser other on nopass +@all ~* &*
        set f [open $aclk_file w]
        puts $f "user default on nopass ~* &* +@all"
        puts $f "user other on nopass ~* &* +@all"
        close $f
        r acl load
        set s [redis_deferring_client]
        $s client setname aclk-default-sub
        $s read
        $s subscribe news
        assert_equal {subscribe news 1} [$s read]
        set o [aclk_client other aclk-other]
        set f [open $aclk_file w]
        puts $f "user default on nopass ~* &a* +@all"
        puts $f "user other on nopass ~* &* +@all"
        close $f
        r acl load
        aclk_wait_closed aclk-other
        assert [aclk_open aclk-default-sub]
        $s close
        $o close
    }
}

start_server {tags {acl redistp}} {
    test {ACL SETUSER closes the user's connections watching a key it may no longer read} {
        r acl setuser wu on nopass +@all ~k* ~other* &*
        set a [aclk_client wu aclk-watch-a]
        set b [aclk_client wu aclk-watch-b]
        set s [aclk_client wu aclk-watch-sub 1]
        assert_equal NOEXIST [$a watchex k1]
        assert_equal NOEXIST [$b watchex other1]
        $s subscribe __watchex@9__:k1
        assert_equal {subscribe __watchex@9__:k1 1} [$s read]
        # Rules that keep every watch readable close nobody.
        r acl setuser wu %R~x*
        assert [aclk_open aclk-watch-a]
        assert [aclk_open aclk-watch-sub]
        r acl setuser wu resetkeys ~other* %W~k*
        aclk_wait_closed aclk-watch-a
        aclk_wait_closed aclk-watch-sub
        assert [aclk_open aclk-watch-b]
        assert_equal 0 [llength [r acl log]]
        foreach c [list $a $b $s] {$c close}
        r acl deluser wu
    }

    test {A connection that takes its own read access away gets its reply, then closes} {
        r acl setuser self on nopass +@all ~*
        set c [aclk_client self aclk-self]
        assert_equal NOEXIST [$c watchex mine]
        assert_equal OK [$c acl setuser self resetkeys ~else*]
        aclk_wait_closed aclk-self
        $c close
        r acl deluser self
    }
}

set aclk_dir2 [::server::new_dir]
file mkdir $aclk_dir2
set aclk_file2 [file join $aclk_dir2 users.acl]
set f [open $aclk_file2 w]
puts $f "user default on nopass ~* &* +@all"
close $f

start_server [list tags {acl redistp external:skip} overrides [list aclfile $aclk_file2]] {
    test {ACL LOAD closes the default user's connections watching a key it may no longer read} {
        set w [redis_client]
        $w client setname aclk-load-watch
        assert_equal NOEXIST [$w watchex k1]
        set s [redis_deferring_client]
        $s client setname aclk-load-sub
        $s read
        $s subscribe __watchex@9__:k1
        assert_equal {subscribe __watchex@9__:k1 1} [$s read]
        set n [redis_deferring_client]
        $n client setname aclk-load-news
        $n read
        $n subscribe news
        assert_equal {subscribe news 1} [$n read]
        set f [open $aclk_file2 w]
        puts $f "user default on nopass ~other* &* +@all"
        close $f
        r acl load
        aclk_wait_closed aclk-load-watch
        aclk_wait_closed aclk-load-sub
        assert [aclk_open aclk-load-news]
        foreach c [list $w $s $n] {$c close}
    }
}
