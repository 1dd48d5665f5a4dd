# TLS: a server listening with tls-port only, its clients with and without a
# certificate (tls-auth-clients yes/no/optional), pipelining across records,
# large replies, tls-protocols and tls-ciphers, CONFIG SET of the certificate
# files (the contexts are rebuilt; a bad file is refused and the old one
# kept), startup errors, and redis-cli --tls.  The certificates are made at
# run time by tls_cert_dir (tests/support/server.tcl).

if {[catch {package require tls}]} {
    incr ::test::skipped
    ::test::emit "\[skip\]: tests/unit/tls.tcl (tcl's tls package is not installed)"
    return
}

# A TLS client of the server at level with the given ::tls::import options.
proc tls_client {opts {level 0}} {
    return [::redis::redis [srv $level host] [srv $level port] 0 5000 $opts]
}

# 1 if a TLS client with `opts` gets a PONG, 0 if its handshake or first
# command fails (the server refused it).
proc tls_ping_works {opts {level 0}} {
    if {[catch {tls_client $opts $level} c]} {return 0}
    set ok [expr {![catch {$c ping} reply] && $reply eq "PONG"}]
    $c close
    return $ok
}

# 1 if openssl s_client completes a handshake with the given version flag
# (-tls1_2, -tls1_3 ...) and the test client certificate, 0 if not.
proc tls_version_works {port flag} {
    set dir [tls_cert_dir]
    set rc [catch {exec openssl s_client -connect 127.0.0.1:$port $flag -brief \
                       -CAfile $dir/ca.crt -cert $dir/client.crt -key $dir/client.key \
                       < /dev/null 2>@1} out]
    return [expr {[regexp {Protocol version: TLSv1} $out] && $rc == 0}]
}

start_server {tags {tls external:skip} tls 1} {
    test {TLS: commands and replies over a TLS-only listener} {
        r set tls:k hello
        assert_equal [r get tls:k] hello
        assert_equal [r incr tls:n] 1
        assert_equal [r ping] PONG
        # The plain port is closed: port 0.
        assert_equal [lindex [r config get port] 1] 0
        assert_equal [lindex [r config get tls-port] 1] [srv port]
    }

    test {TLS: a pipeline of many commands, read after all were sent} {
        set rd [redis_deferring_client]
        set n 2000
        for {set i 0} {$i < $n} {incr i} {
            $rd set tls:p:$i [string repeat x [expr {$i % 100}]]
        }
        $rd flush
        for {set i 0} {$i < $n} {incr i} {
            assert_equal [$rd read] OK
        }
        for {set i 0} {$i < $n} {incr i} {$rd get tls:p:$i}
        $rd flush
        for {set i 0} {$i < $n} {incr i} {
            assert_equal [$rd read] [string repeat x [expr {$i % 100}]]
        }
        $rd close
    }

    test {TLS: a large value in and out (many records each way)} {
        set big [string repeat abcdefghij 400000]
        r set tls:big $big
        assert_equal [r strlen tls:big] 4000000
        assert_equal [r get tls:big] $big
        # A large aggregate reply built from many small pieces.
        for {set i 0} {$i < 5000} {incr i} {r rpush tls:list item:$i}
        set items [r lrange tls:list 0 -1]
        assert_equal [llength $items] 5000
        assert_equal [lindex $items 4999] item:4999
    }

    test {TLS: tls-auth-clients yes refuses a client without a certificate} {
        assert_equal [lindex [r config get tls-auth-clients] 1] yes
        assert_equal [tls_ping_works [tls_client_options 0]] 0
        assert_equal [tls_ping_works [tls_client_options 1]] 1
    }

    test {TLS: tls-auth-clients no and optional accept a client without a certificate} {
        r config set tls-auth-clients no
        assert_equal [tls_ping_works [tls_client_options 0]] 1
        r config set tls-auth-clients optional
        assert_equal [tls_ping_works [tls_client_options 0]] 1
        assert_equal [tls_ping_works [tls_client_options 1]] 1
        r config set tls-auth-clients yes
        assert_equal [tls_ping_works [tls_client_options 0]] 0
    }

    test {TLS: a plain client on the TLS port gets nothing and is dropped} {
        set s [socket 127.0.0.1 [srv port]]
        fconfigure $s -translation binary -blocking 1
        puts -nonewline $s "PING\r\n"
        flush $s
        set got [read $s]
        close $s
        assert_no_match {*PONG*} $got
        assert_equal [r ping] PONG
    }

    test {TLS: tls-protocols limits the versions a client may use} {
        # openssl s_client pins one version; tcl's tls package cannot offer TLSv1.3 alone.
        assert_equal [tls_version_works [srv port] -tls1_3] 1
        assert_equal [tls_version_works [srv port] -tls1_2] 1
        r config set tls-protocols TLSv1.2
        assert_equal [tls_version_works [srv port] -tls1_2] 1
        assert_equal [tls_version_works [srv port] -tls1_3] 0
        r config set tls-protocols "tlsv1.3"
        assert_equal [tls_version_works [srv port] -tls1_2] 0
        assert_equal [tls_version_works [srv port] -tls1_3] 1
        r config set tls-protocols ""
        # The default is TLSv1.2 and TLSv1.3; TLSv1.1 is refused.
        assert_equal [tls_version_works [srv port] -tls1_1] 0
    }

    test {TLS: tls-protocols rejects an unknown version and keeps the old value} {
        catch {r config set tls-protocols TLSv9} e
        assert_equal $e {ERR CONFIG SET failed (possibly related to argument 'tls-protocols') - Unable to update TLS configuration. Check server logs.}
        assert_equal [lindex [r config get tls-protocols] 1] ""
        assert_equal [r ping] PONG
    }

    test {TLS: tls-ciphers with TLSv1.2 picks the cipher a client may use} {
        r config set tls-protocols TLSv1.2
        r config set tls-ciphers ECDHE-RSA-AES128-GCM-SHA256
        set ok [concat [tls_client_options] -tls1.2 1 -tls1.3 0 \
                    -cipher ECDHE-RSA-AES128-GCM-SHA256]
        set bad [concat [tls_client_options] -tls1.2 1 -tls1.3 0 \
                     -cipher ECDHE-RSA-AES256-GCM-SHA384]
        assert_equal [tls_ping_works $ok] 1
        assert_equal [tls_ping_works $bad] 0
        catch {r config set tls-ciphers NOT-A-CIPHER} e
        assert_match {*argument 'tls-ciphers'*Unable to update TLS configuration*} $e
        assert_equal [lindex [r config get tls-ciphers] 1] ECDHE-RSA-AES128-GCM-SHA256
        r config set tls-ciphers ""
        r config set tls-protocols ""
        assert_equal [tls_ping_works [tls_client_options]] 1
    }

    test {TLS: CONFIG SET of a missing certificate is refused, the old one serves on} {
        set old [lindex [r config get tls-cert-file] 1]
        catch {r config set tls-cert-file [file join [srv dir] no-such.crt]} e
        assert_equal $e {ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - Unable to update TLS configuration. Check server logs.}
        assert_equal [lindex [r config get tls-cert-file] 1] $old
        wait_for_log_message {*Failed to load certificate: *no-such.crt*}
        assert_equal [tls_ping_works [tls_client_options]] 1
    }

    test {TLS: CONFIG SET of new certificate files takes effect for new connections} {
        # A second server certificate from a second CA: clients that trust only the first
        # CA are refused once it is in place; an established connection keeps working.
        set dir [srv dir]
        exec openssl genrsa -out $dir/ca2.key 2048 2>@1
        exec openssl req -x509 -new -nodes -sha256 -key $dir/ca2.key -days 30 \
            -subj /O=redis-tp-test/CN=ca2 -out $dir/ca2.crt 2>@1
        exec openssl genrsa -out $dir/s2.key 2048 2>@1
        exec openssl req -new -sha256 -key $dir/s2.key -subj /O=redis-tp-test/CN=s2 \
            -out $dir/s2.csr 2>@1
        exec openssl x509 -req -sha256 -in $dir/s2.csr -CA $dir/ca2.crt -CAkey $dir/ca2.key \
            -CAcreateserial -days 30 -out $dir/s2.crt 2>@1
        set old_cert [lindex [r config get tls-cert-file] 1]
        set old_key [lindex [r config get tls-key-file] 1]
        r config set tls-cert-file $dir/s2.crt tls-key-file $dir/s2.key
        assert_equal [r ping] PONG
        assert_equal [tls_ping_works [tls_client_options]] 0
        set opts2 [list -cafile $dir/ca2.crt -require 1 \
                       -certfile [file join [tls_cert_dir] client.crt] \
                       -keyfile [file join [tls_cert_dir] client.key]]
        assert_equal [tls_ping_works $opts2] 1
        r config set tls-cert-file $old_cert tls-key-file $old_key
        assert_equal [tls_ping_works [tls_client_options]] 1
    }

    test {TLS: a key that does not match the certificate is refused} {
        catch {r config set tls-key-file [file join [tls_cert_dir] client.key]} e
        assert_match {*argument 'tls-key-file'*Unable to update TLS configuration*} $e
        wait_for_log_message {*Failed to load private key: *client.key*}
        assert_equal [tls_ping_works [tls_client_options]] 1
    }

    test {TLS: an encrypted key file with tls-key-file-pass} {
        set dir [srv dir]
        set certs [tls_cert_dir]
        exec openssl rsa -aes256 -in $certs/server.key -out $dir/enc.key \
            -passout pass:sesame 2>@1
        set old_key [lindex [r config get tls-key-file] 1]
        # A wrong password does not load; the old key serves on.
        r config set tls-key-file-pass wrong
        catch {r config set tls-key-file $dir/enc.key} e
        assert_match {*argument 'tls-key-file'*Unable to update TLS configuration*} $e
        assert_equal [tls_ping_works [tls_client_options]] 1
        r config set tls-key-file-pass sesame tls-key-file $dir/enc.key
        assert_equal [lindex [r config get tls-key-file] 1] $dir/enc.key
        assert_equal [tls_ping_works [tls_client_options]] 1
        r config set tls-key-file $old_key tls-key-file-pass ""
        assert_equal [tls_ping_works [tls_client_options]] 1
    }

    test {TLS: tls-* parameters answer CONFIG GET with their values} {
        assert_equal [r config get tls-session-caching] {tls-session-caching yes}
        assert_equal [r config get tls-session-cache-size] {tls-session-cache-size 20480}
        assert_equal [r config get tls-session-cache-timeout] {tls-session-cache-timeout 300}
        assert_equal [r config get tls-replication] {tls-replication no}
        assert_equal [r config get tls-cluster] {tls-cluster no}
        assert_equal [r config get tls-prefer-server-ciphers] {tls-prefer-server-ciphers no}
        r config set tls-session-caching no tls-prefer-server-ciphers yes
        assert_equal [tls_ping_works [tls_client_options]] 1
        r config set tls-session-caching yes tls-prefer-server-ciphers no
        catch {r config set tls-auth-clients maybe} e
        assert_equal $e {ERR CONFIG SET failed (possibly related to argument 'tls-auth-clients') - argument(s) must be one of the following: no, yes, optional}
    }

    test {TLS: redis-cli --tls talks to the server} {
        set dir [tls_cert_dir]
        set out [exec redis-cli -h 127.0.0.1 -p [srv port] --tls \
                     --cacert $dir/ca.crt --cert $dir/client.crt --key $dir/client.key \
                     -n 9 set tls:cli works]
        assert_equal $out OK
        assert_equal [r get tls:cli] works
        # Without a client certificate the server refuses it.
        catch {exec redis-cli -h 127.0.0.1 -p [srv port] --tls --cacert $dir/ca.crt ping} e
        assert_no_match PONG $e
    }

    test {TLS: CLIENT LIST shows the TLS port as the local address} {
        assert_match "*laddr=127.0.0.1:[srv port] *" [r client list]
    }

    test {TLS: with port 0, INFO's tcp_port and the start line name the TLS port} {
        assert_match "*tcp_port:[srv port]\r\n*" [r info server]
        assert_match "*Running mode=standalone, port=[srv port].*" [exec cat [srv stdout]]
    }
}

start_server {tags {tls external:skip}} {
    test {TLS: CONFIG SET tls-port opens a TLS listener beside the plain port} {
        foreach {k v} [tls_server_overrides] {r config set $k $v}
        set tport [::server::find_free_port]
        r config set tls-port $tport
        set c [::redis::redis 127.0.0.1 $tport 0 5000 [tls_client_options]]
        assert_equal [$c ping] PONG
        $c close
        assert_equal [r ping] PONG
        r config set tls-port 0
        assert_error {*} {::redis::redis 127.0.0.1 $tport 0 2000 [tls_client_options]}
    }

    test {TLS: tls-port with a bad certificate fails at startup with Redis's message} {
        set dir [tls_cert_dir]
        set port [::server::find_free_port]
        set tport [::server::find_free_port]
        lassign [run_server_briefly [list --bind 127.0.0.1 --port $port --tls-port $tport \
                     --tls-cert-file /nonexistent/server.crt --tls-key-file $dir/server.key \
                     --tls-ca-cert-file $dir/ca.crt --save ""]] status out
        assert_equal $status {exit 1}
        assert_match {*Failed to load certificate: /nonexistent/server.crt: *No such file*} $out
        assert_match {*Failed to configure TLS. Check logs for more info.*} $out
    }

    test {TLS: tls-port without a CA fails at startup with Redis's message} {
        set dir [tls_cert_dir]
        set port [::server::find_free_port]
        set tport [::server::find_free_port]
        lassign [run_server_briefly [list --bind 127.0.0.1 --port $port --tls-port $tport \
                     --tls-cert-file $dir/server.crt --tls-key-file $dir/server.key \
                     --save ""]] status out
        assert_equal $status {exit 1}
        assert_match {*Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, tls-replication or tls-auth-clients are enabled!*} $out
    }

    test {TLS: tls-protocols with an unknown word fails at startup} {
        set dir [tls_cert_dir]
        set port [::server::find_free_port]
        set tport [::server::find_free_port]
        lassign [run_server_briefly [list --bind 127.0.0.1 --port $port --tls-port $tport \
                     --tls-cert-file $dir/server.crt --tls-key-file $dir/server.key \
                     --tls-ca-cert-file $dir/ca.crt --tls-protocols TLSv1.9 \
                     --save ""]] status out
        assert_equal $status {exit 1}
        assert_match {*Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.*} $out
    }
}

# The event loop's edges over TLS: refusal at maxclients, and handshakes while a script is busy.
start_server {tags {tls external:skip} tls 1} {
    # 1 and the error text if a new TLS client's PING fails (handshake or reply), 0 and PONG if not.
    proc tls_new_client_ping {} {
        if {[catch {tls_client [tls_client_options]} c]} {return [list 1 $c]}
        set failed [catch {$c ping} reply]
        catch {$c close}
        return [list $failed $reply]
    }

    test {TLS: a client past maxclients is refused and counted, the others serve on} {
        set before [s rejected_connections]
        r config set maxclients [s connected_clients]
        # Redis 7.0 cannot write its "max number of clients" error into a TLS connection
        # whose handshake has not run: the client sees the connection end, never a reply.
        lassign [tls_new_client_ping] failed reply
        assert_equal 1 $failed
        assert_no_match {PONG} $reply
        wait_for_condition 100 20 {
            [s rejected_connections] == $before + 1
        } else {
            fail "the refused connection was not counted"
        }
        r config set maxclients 10000
        assert_equal {0 PONG} [tls_new_client_ping]
    } {} {needs:config}

    test {TLS: a new client completes its handshake while a script is busy and gets BUSY} {
        r config set busy-reply-threshold 50
        set rd [redis_deferring_client]
        $rd eval {while true do end} 0
        $rd flush
        # The loop keeps accepting and handshaking during the script: PING gets BUSY.
        set got {}
        for {set i 0} {$i < 100 && ![string match BUSY* [lindex $got 1]]} {incr i} {
            set got [tls_new_client_ping]
            after 50
        }
        # The script is ended first, whatever the outcome, so the server serves on.
        set c [tls_client [tls_client_options]]
        assert_equal OK [$c script kill]
        $c close
        assert_error {*killed by user*} {$rd read}
        $rd close
        assert_equal 1 [lindex $got 0]
        assert_match {BUSY Redis is busy running a script*} [lindex $got 1]
        assert_equal PONG [r ping]
        r config set busy-reply-threshold 5000
    } {} {needs:config}
}

# MIGRATE follows tls-cluster, as Redis 7.0: with it, the connection to the target is TLS.
start_server {tags {tls external:skip} tls 1} {
    start_server {tags {tls} tls 1 overrides {tls-cluster yes}} {
        test {TLS: MIGRATE with tls-cluster yes moves keys to a TLS-only target} {
            r set tls:mig hello
            r rpush tls:migl a b c
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] "" [srv -1 db] 5000 keys tls:mig tls:migl]
            assert_equal hello [r -1 get tls:mig]
            assert_equal {a b c} [r -1 lrange tls:migl 0 -1]
            assert_equal 0 [r exists tls:mig tls:migl]
            # The cached TLS connection serves the next one; the target's error comes back.
            r set tls:mig2 v
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] tls:mig2 [srv -1 db] 5000 copy]
            assert_equal v [r -1 get tls:mig2]
            assert_error {*BUSYKEY*} {r migrate [srv -1 host] [srv -1 port] tls:mig2 [srv -1 db] 5000}
            assert_equal 1 [r exists tls:mig2]
        }
    }

    start_server {tags {tls} tls 1} {
        test {TLS: MIGRATE with tls-cluster no does not reach a TLS-only target} {
            assert_equal no [lindex [r config get tls-cluster] 1]
            r set tls:mig3 v
            assert_error {IOERR*} {r migrate [srv -1 host] [srv -1 port] tls:mig3 [srv -1 db] 1000}
            assert_equal 1 [r exists tls:mig3]
            assert_equal 0 [r -1 exists tls:mig3]
        } {} {needs:config}
    }
}
