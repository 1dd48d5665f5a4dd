# A small RESP client in pure Tcl, written for this test suite.
#
# Model: every client is a socket kept in non-blocking binary mode plus a
# private input buffer.  Replies are parsed out of that buffer; when it runs
# dry the client waits for the socket to become readable, but never longer
# than its timeout (20 s unless changed), so a server that stops answering
# fails the test instead of hanging the suite.  Writes are queued by Tcl's
# channel layer and drained by the event loop, so a server that stops
# reading cannot block us either.
#
# A client is a command: [::redis::redis host port ?defer?] returns a name
# like ::redis::client7, used as `$c set foo bar`.  Unknown subcommands are
# sent to the server as a RESP array; the methods below are handled locally:
#
#   $c read              read one reply (deferring clients, or after `write`)
#   $c readraw 0|1       raw mode: each read returns one protocol line, as is
#   $c deferred 0|1      deferring mode: commands are sent but not read
#   $c write BYTES       send raw bytes (no framing); then `$c flush`
#   $c attributes        the last RESP3 attribute map seen, as a flat list
#   $c timeout ?MS?      get or set the read timeout
#   $c channel           the underlying Tcl channel
#   $c close             close the socket and forget the client
#
# Reply mapping: simple strings, bulk strings, verbatim strings (without the
# "txt:" prefix), doubles and big numbers become Tcl strings; integers stay
# integers; RESP2 and RESP3 nulls become the empty string; booleans become
# 1 or 0; arrays, sets, pushes and maps become lists (maps flattened as
# key value key value ...).  An error reply raises a Tcl error whose message
# is the error text (e.g. "ERR unknown command ...") when it is the whole
# reply; inside an aggregate it is kept as a string element so the rest of
# the aggregate is still consumed.

namespace eval ::redis {
    variable next_id 0
    variable default_timeout_ms 20000
    variable fd
    variable buf
    variable pos
    variable defer
    variable raw
    variable timeout_ms
    variable attrs
    variable wake
}

# Opens a TCP connection with a bounded wait and returns the channel.
# Raises "connection refused"-style errors, or a timeout error.  With `tls`
# (a list of options for tcl-tls's ::tls::import, e.g. -cafile, -certfile,
# -keyfile) the connection is then wrapped in TLS and its handshake done,
# bounded by the same timeout; a refused handshake raises its error.
proc ::redis::connect_socket {host port timeout_ms {tls {}}} {
    set sock [socket -async $host $port]
    set token ::redis::connect_[string map {: _} $sock]
    set $token ""
    fileevent $sock writable [list set $token ready]
    set timer [after $timeout_ms [list set $token timeout]]
    vwait $token
    after cancel $timer
    fileevent $sock writable {}
    set state [set $token]
    unset $token
    set err [fconfigure $sock -error]
    if {$state eq "timeout" || $err ne ""} {
        catch {close $sock}
        if {$err eq ""} {set err "connect timed out after $timeout_ms ms"}
        error "couldn't connect to $host:$port: $err"
    }
    if {[llength $tls]} {tls_handshake $sock $tls $timeout_ms}
    fconfigure $sock -blocking 0 -translation binary -buffering full -buffersize 1048576
    return $sock
}

# Wraps a connected socket in TLS and completes the handshake without
# blocking past timeout_ms (tls::handshake returns 0 while it is in progress).
proc ::redis::tls_handshake {sock opts timeout_ms} {
    package require tls
    fconfigure $sock -blocking 0
    if {[catch {::tls::import $sock {*}$opts} err]} {
        catch {close $sock}
        error "TLS setup failed: $err"
    }
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while 1 {
        if {[catch {::tls::handshake $sock} done]} {
            catch {close $sock}
            error "TLS handshake failed: $done"
        }
        if {$done} return
        if {[clock milliseconds] > $deadline} {
            catch {close $sock}
            error "TLS handshake timed out after $timeout_ms ms"
        }
        after 5
    }
}

# Creates a client connected to host:port.  With defer set, commands are only
# sent; replies are collected with `$c read`.  `tls`: see connect_socket.
proc ::redis::redis {host port {defer 0} {timeout_ms ""} {tls {}}} {
    variable next_id
    variable default_timeout_ms
    if {$timeout_ms eq ""} {set timeout_ms $default_timeout_ms}
    set sock [connect_socket $host $port $timeout_ms $tls]
    set id [incr next_id]
    set ::redis::fd($id) $sock
    set ::redis::buf($id) ""
    set ::redis::pos($id) 0
    set ::redis::defer($id) $defer
    set ::redis::raw($id) 0
    set ::redis::timeout_ms($id) $timeout_ms
    set ::redis::attrs($id) {}
    set name ::redis::client$id
    interp alias {} $name {} ::redis::dispatch $id
    return $name
}

# Converts a Tcl string argument to the bytes sent on the wire.  Strings made
# only of code points 0-255 are taken as raw bytes (binary values round trip
# unchanged); anything wider is sent as UTF-8.
proc ::redis::to_bytes {s} {
    if {[regexp {[^\x00-\xff]} $s]} {
        return [encoding convertto utf-8 $s]
    }
    return $s
}

# Frames a command as a RESP array of bulk strings.
proc ::redis::encode_command {argv} {
    set out "*[llength $argv]\r\n"
    foreach a $argv {
        set a [to_bytes $a]
        append out "\$[string length $a]\r\n" $a "\r\n"
    }
    return $out
}

proc ::redis::dispatch {id method args} {
    switch -exact -- $method {
        read {
            return [read_reply $id 0]
        }
        readraw {
            set ::redis::raw($id) [lindex $args 0]
            return
        }
        deferred {
            set ::redis::defer($id) [lindex $args 0]
            return
        }
        write {
            puts -nonewline $::redis::fd($id) [to_bytes [lindex $args 0]]
            return
        }
        flush {
            flush $::redis::fd($id)
            return
        }
        attributes {
            return $::redis::attrs($id)
        }
        timeout {
            if {[llength $args]} {set ::redis::timeout_ms($id) [lindex $args 0]}
            return $::redis::timeout_ms($id)
        }
        channel {
            return $::redis::fd($id)
        }
        close {
            close_client $id
            return
        }
        default {
            set sock $::redis::fd($id)
            if {[catch {
                puts -nonewline $sock [encode_command [linsert $args 0 $method]]
                flush $sock
            } err]} {
                error "I/O error writing command: $err"
            }
            if {$::redis::defer($id)} return
            return [read_reply $id 0]
        }
    }
}

proc ::redis::close_client {id} {
    catch {close $::redis::fd($id)}
    foreach v {fd buf pos defer raw timeout_ms attrs wake} {
        unset -nocomplain ::redis::${v}($id)
    }
    catch {interp alias {} ::redis::client$id {}}
}

# Appends whatever the socket has to the buffer, waiting (bounded by the
# client's timeout) until at least one byte arrived.  Raises on EOF/timeout.
proc ::redis::fill {id} {
    set sock $::redis::fd($id)
    set deadline [expr {[clock milliseconds] + $::redis::timeout_ms($id)}]
    while 1 {
        if {[catch {read $sock} data]} {
            error "I/O error reading reply: $data"
        }
        if {$data ne ""} {
            append ::redis::buf($id) $data
            return
        }
        if {[eof $sock]} {
            error "I/O error reading reply: connection closed by the server"
        }
        set left [expr {$deadline - [clock milliseconds]}]
        if {$left <= 0} {
            error "I/O error reading reply: no reply within $::redis::timeout_ms($id) ms"
        }
        set ::redis::wake($id) ""
        fileevent $sock readable [list set ::redis::wake($id) readable]
        set timer [after $left [list set ::redis::wake($id) timeout]]
        vwait ::redis::wake($id)
        after cancel $timer
        catch {fileevent $sock readable {}}
    }
}

# Drops consumed bytes once they dominate the buffer, keeping reads linear.
proc ::redis::compact {id} {
    set p $::redis::pos($id)
    if {$p > 65536 && $p * 2 > [string length $::redis::buf($id)]} {
        set ::redis::buf($id) [string range $::redis::buf($id) $p end]
        set ::redis::pos($id) 0
    }
}

# Returns the next CRLF-terminated line, without the CRLF.
proc ::redis::read_line {id} {
    set from $::redis::pos($id)
    while 1 {
        set idx [string first "\r\n" $::redis::buf($id) $from]
        if {$idx >= 0} break
        set from [expr {max($::redis::pos($id), [string length $::redis::buf($id)] - 1)}]
        fill $id
    }
    set line [string range $::redis::buf($id) $::redis::pos($id) [expr {$idx - 1}]]
    set ::redis::pos($id) [expr {$idx + 2}]
    compact $id
    return $line
}

# Returns the next n bytes followed by a CRLF (the CRLF is consumed).
proc ::redis::read_bytes {id n} {
    while {[string length $::redis::buf($id)] - $::redis::pos($id) < $n + 2} {
        fill $id
    }
    set p $::redis::pos($id)
    set data [string range $::redis::buf($id) $p [expr {$p + $n - 1}]]
    set ::redis::pos($id) [expr {$p + $n + 2}]
    compact $id
    return $data
}

proc ::redis::read_count {id line} {
    set n [string range $line 1 end]
    if {![string is integer -strict $n]} {
        error "protocol error: bad length in '$line'"
    }
    return $n
}

# Reads one reply.  depth is 0 for a whole reply and >0 inside aggregates.
proc ::redis::read_reply {id depth} {
    set line [read_line $id]
    if {$::redis::raw($id)} {return $line}
    set type [string index $line 0]
    set rest [string range $line 1 end]
    switch -exact -- $type {
        + {return $rest}
        - {
            if {$depth == 0} {error $rest}
            return $rest
        }
        : {return $rest}
        , {return $rest}
        ( {return $rest}
        # {
            if {$rest eq "t"} {return 1}
            if {$rest eq "f"} {return 0}
            error "protocol error: bad boolean '$line'"
        }
        _ {return {}}
        $ {
            set n [read_count $id $line]
            if {$n < 0} {return {}}
            return [read_bytes $id $n]
        }
        = {
            set n [read_count $id $line]
            set text [read_bytes $id $n]
            return [string range $text 4 end]
        }
        ! {
            set n [read_count $id $line]
            set text [read_bytes $id $n]
            if {$depth == 0} {error $text}
            return $text
        }
        * - ~ - > {
            set n [read_count $id $line]
            if {$n < 0} {return {}}
            set out {}
            for {set i 0} {$i < $n} {incr i} {
                lappend out [read_reply $id [expr {$depth + 1}]]
            }
            return $out
        }
        % - | {
            set n [read_count $id $line]
            set out {}
            for {set i 0} {$i < 2 * $n} {incr i} {
                lappend out [read_reply $id [expr {$depth + 1}]]
            }
            if {$type eq "|"} {
                # An attribute annotates the reply that follows it.
                set ::redis::attrs($id) $out
                return [read_reply $id $depth]
            }
            return $out
        }
        default {
            error "protocol error: unexpected reply line '$line'"
        }
    }
}
