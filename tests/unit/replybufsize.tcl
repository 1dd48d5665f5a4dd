# A connection's reply buffer (rbs in CLIENT LIST, rbp its peak) is sized by the clients
# cron from the peak use of the last interval, as Redis 7.0 does: it shrinks toward the peak
# (never under 1 KB) when under half of it was used, and doubles (up to 16 KB) when it was
# filled. DEBUG REPLYBUFFER changes the interval and turns the resizing off.

proc reply_buf_of {name field} {
    foreach line [split [r client list] "\r\n"] {
        if {[string match "*name=$name *" $line]} {
            regexp "$field=(\[0-9\]+)" $line - v
            return $v
        }
    }
    return -1
}

start_server {tags {replybufsize needs:debug}} {
    test {A new connection's reply buffer starts at 16 KB} {
        set c [redis_client]
        $c client setname fresh
        assert_equal 16384 [reply_buf_of fresh rbs]
        $c close
    }

    test {An idle reply buffer shrinks, a filled one grows back to 16 KB} {
        r debug replybuffer peak-reset-time 100
        set c [redis_client]
        $c client setname rb
        wait_for_condition 100 50 {
            [reply_buf_of rb rbs] >= 1024 && [reply_buf_of rb rbs] < 2048
        } else {
            fail "the idle reply buffer was not shrunk: [reply_buf_of rb rbs]"
        }
        r set big [string repeat v 40000]
        # The peak must survive until the cron looks at it.
        r debug replybuffer peak-reset-time never
        wait_for_condition 100 50 {
            [string length [$c get big]] == 40000 &&
            [reply_buf_of rb rbs] >= 16384 && [reply_buf_of rb rbs] < 32768
        } else {
            fail "the reply buffer did not grow: [reply_buf_of rb rbs]"
        }
        # Back to the default interval (5 s): the quiet buffer shrinks again.
        r debug replybuffer peak-reset-time reset
        wait_for_condition 200 50 {
            [reply_buf_of rb rbs] >= 1024 && [reply_buf_of rb rbs] < 2048
        } else {
            fail "the reply buffer was not shrunk back: [reply_buf_of rb rbs]"
        }
        $c close
    }

    test {DEBUG REPLYBUFFER RESIZING 0 keeps the size} {
        r debug replybuffer peak-reset-time 100
        r debug replybuffer resizing 0
        set c [redis_client]
        $c client setname frozen
        # Ten cron intervals with resets: the buffer would have shrunk.
        after 1000
        assert_equal 16384 [reply_buf_of frozen rbs]
        r debug replybuffer resizing 1
        wait_for_condition 100 50 {
            [reply_buf_of frozen rbs] < 2048
        } else {
            fail "resizing did not restart"
        }
        r debug replybuffer peak-reset-time reset
        $c close
    }

    test {DEBUG REPLYBUFFER arguments} {
        assert_error {*value is not an integer or out of range*} {r debug replybuffer peak-reset-time soon}
        assert_error {*unknown subcommand or wrong number of arguments for 'replybuffer'*} {r debug replybuffer}
        assert_error {*unknown subcommand or wrong number of arguments for 'replybuffer'*} {r debug replybuffer peak-reset-time}
        assert_error {*unknown subcommand or wrong number of arguments for 'replybuffer'*} {r debug replybuffer shrink 1}
        assert_equal OK [r debug replybuffer peak-reset-time NEVER]
        assert_equal OK [r debug replybuffer peak-reset-time RESET]
        assert_equal OK [r debug replybuffer resizing 1]
    }
}
