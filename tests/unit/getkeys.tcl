# COMMAND GETKEYS/GETKEYSANDFLAGS where the two key searches of Redis 7.0 meet: a command's key
# specs, and its key procedure, which Redis asks when the specs cannot say (a key count that is
# not a strict integer, a key past the end of the line, SORT's and MIGRATE's incomplete
# specs). The expected replies are what Redis 7.0.15 answers for each line.

# Lines the key specs answer.
set getkeys_spec_facts {
    {{lmpop 3 a b LEFT} {{a {RW access delete}} {b {RW access delete}} {LEFT {RW access delete}}}}
    {{georadius g 1 2 3 m STORE d STOREDIST e} {{g {RO access}} {d {OW update}} {e {OW update}}}}
    {{xread COUNT STREAMS STREAMS a 0} {{STREAMS {RO access}}}}
}

# Lines the key procedure answers: a count read as C's atoi, keys without flags (a *STORE
# command's destination last); SORT_RO, MIGRATE and GEORADIUS with the flags their procedures
# give.
set getkeys_procedure_facts {
    {{zunionstore dst 1e3 a b} {{a {}} {dst {}}}}
    {{zunionstore dst { 1} a} {{a {}} {dst {}}}}
    {{zunion 1e3 a b} {{a {}}}}
    {{sintercard 1e2 a b} {{a {}}}}
    {{lmpop 1e0 a LEFT} {{a {}}}}
    {{eval x 1e0 a b} {{a {}}}}
    {{eval x 2x a b c} {{a {}} {b {}}}}
    {{fcall f 1x a} {{a {}}}}
    {{eval x 5 a b} {}}
    {{eval x 4 a b c} {}}
    {{sort_ro s BY x} {{s {RO access}}}}
    {{migrate h 1 {} 0 5 KEYS a b} {{a {RW access delete}} {b {RW access delete}}}}
    {{migrate h 1 {} 0 5 AUTH KEYS KEYS a b} {{a {RW access delete}} {b {RW access delete}}}}
    {{georadius g 1 2 3 m STORE} {{g {RO access}}}}
}

# Lines where neither search finds a key (a count of 0, negative, or past the end).
set getkeys_keyless_lines {
    {zunionstore dst 0 a}
    {zunionstore dst -1 a}
    {zunionstore dst 3 a b}
    {zunionstore dst 2 a}
    {zunion 3 a b}
    {zunion 2 a}
    {sintercard 2 a}
    {lmpop 0 a LEFT}
}

start_server {tags {command}} {
    foreach row [concat $getkeys_spec_facts $getkeys_procedure_facts] {
        lassign $row line expected
        test "COMMAND GETKEYSANDFLAGS $line" {
            assert_equal $expected [r command getkeysandflags {*}$line]
            set keys {}
            foreach k $expected {lappend keys [lindex $k 0]}
            assert_equal $keys [r command getkeys {*}$line] "GETKEYS agrees"
        }
    }

    foreach line $getkeys_keyless_lines {
        test "COMMAND GETKEYS finds no key: $line" {
            assert_error {*Invalid arguments specified for command*} {r command getkeys {*}$line}
            assert_error {*Invalid arguments*} {r command getkeysandflags {*}$line}
        }
    }
}
