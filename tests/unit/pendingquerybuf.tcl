# The replica's connection to its master (the "master" client, flag M in CLIENT LIST) reads
# the replication stream like any connection: a big value makes its query buffer as big, the
# replica shows it (CLIENT LIST TYPE MASTER), and the clients cron gives the room back once
# the stream goes quiet.

# qbuf + qbuf-free of the first client of `type` on the server at `level`.
proc pqb_query_buf {level type} {
    set line [lindex [split [string trim [r $level client list type $type]] "\n"] 0]
    if {![regexp {qbuf=([0-9]+) qbuf-free=([0-9]+)} $line - used free]} {return -1}
    return [expr {$used + $free}]
}

start_server {tags {repl external:skip}} {
    start_server {} {
        test {The master link's query buffer holds a big value, then gives the room back} {
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_condition 100 100 {
                [string match {*master_link_status:up*} [r info replication]]
            } else {
                fail "the replica did not connect"
            }
            # The link is listed as the master client.
            assert_match {*flags=M *} [r client list type master]
            r -1 set bigkey [string repeat A [expr {8 * 1024 * 1024}]]
            wait_for_condition 100 100 {
                [r strlen bigkey] == 8388608
            } else {
                fail "the value did not reach the replica"
            }
            # Once the stream is quiet the room is given back: a few KB at most.
            wait_for_condition 100 100 {
                [pqb_query_buf 0 master] >= 0 && [pqb_query_buf 0 master] < 65536
            } else {
                fail "the master link kept its query buffer: [r client list type master]"
            }
            r replicaof no one
        } {OK}
    }
}
