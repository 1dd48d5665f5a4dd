# The software watchdog (watchdog-period, a debug knob): while it is set, a command that keeps
# the main thread longer than the period leaves "--- WATCHDOG TIMER EXPIRED ---" and the stack
# trace of where the thread is in the log, and the server goes on; 0 turns it off.

start_server {tags {logging external:skip needs:debug}} {
    test {The watchdog logs a stack trace of a command stuck past watchdog-period} {
        r config set watchdog-period 200
        r debug sleep 1
        wait_for_log_message {*WATCHDOG TIMER EXPIRED*} 100 20
        assert_morethan [count_log_message {*STACK TRACE*}] 0
        r config set watchdog-period 0
        set expired [count_log_message {*WATCHDOG TIMER EXPIRED*}]
        r debug sleep 0.5
        assert_equal [count_log_message {*WATCHDOG TIMER EXPIRED*}] $expired
        assert_equal [r ping] PONG
    }
}
