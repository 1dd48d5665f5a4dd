# LOLWUT: computer art and the version line. The drawings are random and each
# server's own; what is checked is their shape and the version line.

start_server {tags {lolwut}} {
    set version [dict get [r hello 2] version]

    test {LOLWUT without a drawing for the version is the version line alone} {
        assert_equal "Redis ver. $version\n" [r lolwut]
        assert_equal "Redis ver. $version\n" [r lolwut version 1]
        assert_equal "Redis ver. $version\n" [r lolwut version 7]
        # Anything but VERSION first is ignored.
        assert_equal "Redis ver. $version\n" [r lolwut foo]
        assert_equal "Redis ver. $version\n" [r lolwut version]
    }

    test {LOLWUT VERSION 5 draws Braille lines, then the caption and version line} {
        set text [encoding convertfrom utf-8 [r lolwut version 5 10 2 2]]
        set lines [split [string trimright $text \n] \n]
        assert_match "* Redis ver. $version" [lindex $lines end]
        assert_equal {} [lindex $lines end-1]
        foreach line [lrange $lines 0 end-2] {
            # 10 columns of Braille characters (U+2800..U+28FF).
            assert_equal 10 [string length $line]
            foreach ch [split $line {}] {
                scan $ch %c cp
                assert_range $cp 0x2800 0x28ff
            }
        }
        # Arguments are clamped, not refused.
        assert_match "*Redis ver. $version\n" [r lolwut version 5 -1 -1 -1]
    }

    test {LOLWUT VERSION 6 draws rows of ANSI coloured cells} {
        set text [r lolwut version 6 12 4]
        set lines [split [string trimright $text \n] \n]
        assert_match "* Redis ver. $version" [lindex $lines end]
        set rows 0
        foreach line $lines {
            if {[string match "\033\\\[*" $line]} {
                incr rows
                assert_equal 12 [regexp -all "\033\\\[\[0-9;\]+m \033\\\[0m" $line]
            }
        }
        assert_equal 4 $rows
    }

    test {LOLWUT errors and reply type} {
        assert_error {ERR value is not an integer or out of range} {r lolwut version x}
        assert_error {ERR value is not an integer or out of range} {r lolwut version 5 x}
        assert_error {ERR value is not an integer or out of range} {r lolwut version 6 10 y}
        r hello 3
        assert_equal "Redis ver. $version\n" [r lolwut]
        r hello 2
        set info [lindex [r command info lolwut] 0]
        assert_equal {lolwut -1 {readonly fast}} [lrange $info 0 2]
    }
}
