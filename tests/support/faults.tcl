# Disk and fork faults for the server under test (tests/integration/faults-*.tcl).
#
# Model: the server runs with tests/support/faultinject.c preloaded (LD_PRELOAD), which reads
# its rules from a control file whenever the file changes (see faultinject.c for the rule
# syntax). `faults_env` makes a fresh control file and returns the environment for
# start_server's `env` option; `fault_set` replaces the rules (an empty list heals the disk),
# `fault_log_count` counts the faults that happened, from the shim's own log. The same shim
# works for redis-tp and for Debian's redis-server, so every test here runs against both.
#
# The full-disk tests mount a small tmpfs (`tmpfs_mount`): they need root and a kernel that
# lets us mount; otherwise they are reported as skipped, with the reason.

namespace eval ::faults {
    variable control ""
    variable log ""
    variable counter 0
}

# The shim, built by `make test-support` (a prerequisite of `make test`).
proc faults_shim {} {
    set path [file normalize [file join $::server::root build test-support faultinject.so]]
    if {![file exists $path]} {
        error "$path is missing: build it with `make test-support`"
    }
    return $path
}

# A new, empty control file (and fault log) in tests/tmp/faults.<pid>/ (faults_cleanup removes
# it); returns the env dict for start_server.
proc faults_env {} {
    set dir [file normalize [file join $::server::root tests tmp faults.[pid]]]
    file mkdir $dir
    set n [incr ::faults::counter]
    set ::faults::control [file join $dir $n.control]
    set ::faults::log [file join $dir $n.log]
    close [open $::faults::control w]
    file delete -force $::faults::log
    set asan "verify_asan_link_order=0"
    if {[info exists ::env(ASAN_OPTIONS)] && $::env(ASAN_OPTIONS) ne ""} {
        set asan "$::env(ASAN_OPTIONS):$asan"
    }
    return [dict create LD_PRELOAD [faults_shim] FAULTINJECT_CONTROL $::faults::control \
        FAULTINJECT_LOG $::faults::log ASAN_OPTIONS $asan]
}

# Replaces the rules: each element is one rule line, e.g. {write *temp-*.rdb EIO}. The file
# is written aside and renamed into place, so the shim never reads half a file.
proc fault_set {args} {
    set tmp $::faults::control.tmp
    set f [open $tmp w]
    foreach rule $args {puts $f $rule}
    close $f
    file rename -force $tmp $::faults::control
}

# Removes this test file's control files and fault logs (at its end).
proc faults_cleanup {} {
    file delete -force [file join $::server::root tests tmp faults.[pid]]
}

# Heals every fault.
proc fault_clear {} {fault_set}

# How many faults of `call` (write, fsync, rename, fork) the shim has injected so far.
proc fault_log_count {{call *}} {
    if {![file exists $::faults::log]} {return 0}
    set f [open $::faults::log r]
    set n 0
    while {[gets $f line] >= 0} {
        if {[string match "* $call *" $line]} {incr n}
    }
    close $f
    return $n
}

# Mounts a tmpfs of `size` (e.g. 2m) on a new directory under tests/tmp and returns its path,
# or returns "" and sets ::faults::why when that cannot be done here.
proc tmpfs_mount {size} {
    if {[exec id -u] ne "0"} {
        set ::faults::why "needs root to mount a tmpfs"
        return ""
    }
    set dir [file normalize [file join $::server::root tests tmp tmpfs.[pid].[incr ::faults::counter]]]
    file mkdir $dir
    if {[catch {exec mount -t tmpfs -o size=$size tmpfs $dir} err]} {
        file delete -force $dir
        set ::faults::why "mount -t tmpfs failed: [string trim $err]"
        return ""
    }
    return $dir
}

proc tmpfs_umount {dir} {
    catch {exec umount $dir}
    catch {file delete -force $dir}
}

# Bytes free in the file system holding `dir`.
proc fs_free_bytes {dir} {
    set out [exec df -B1 --output=avail $dir]
    return [string trim [lindex [split $out \n] end]]
}
