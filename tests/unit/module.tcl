# MODULE on a server without modules: an empty MODULE LIST, LOAD/LOADEX/UNLOAD
# refused unless enable-module-command allows them, and then failing as a load
# of a missing module fails; a loadmodule directive that stops the start.

start_server {tags {module}} {
    test {MODULE LIST is empty} {
        assert_equal {} [r module list]
        r hello 3
        assert_equal {} [r module list]
        r hello 2
    }

    test {MODULE LOAD, LOADEX and UNLOAD are refused while enable-module-command is no} {
        assert_equal no [lindex [r config get enable-module-command] 1]
        set refusal {ERR MODULE command not allowed. If the enable-module-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.}
        foreach cmd {
            {module load /no/such/module.so}
            {module load /no/such/module.so arg1 arg2}
            {module loadex /no/such/module.so CONFIG a b ARGS c}
            {module unload nosuchmodule}
        } {
            assert_error $refusal {r {*}$cmd}
        }
    }

    test {MODULE LOAD is refused when queued in MULTI, and a script may not call it} {
        set refusal {ERR MODULE command not allowed. If the enable-module-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.}
        r multi
        catch {r module load /no/such/module.so} e
        assert_equal $e $refusal
        assert_equal QUEUED [r module list]
        assert_error {EXECABORT*} {r exec}
        assert_error {*This Redis command is not allowed from script*} \
            {r eval {return redis.call('module', 'unload', 'x')} 0}
    }

    test {enable-module-command cannot be changed at run time} {
        assert_error {ERR CONFIG SET failed (possibly related to argument 'enable-module-command') - can't set immutable config} {
            r config set enable-module-command yes
        }
    } {} {needs:config}

    test {MODULE argument errors and HELP} {
        assert_error {ERR wrong number of arguments for 'module' command} {r module}
        assert_error {ERR unknown subcommand 'nosuch'. Try MODULE HELP.} {r module nosuch}
        assert_error {ERR wrong number of arguments for 'module|list' command} {r module list x}
        assert_error {ERR wrong number of arguments for 'module|load' command} {r module load}
        assert_error {ERR wrong number of arguments for 'module|loadex' command} {r module loadex}
        assert_error {ERR wrong number of arguments for 'module|unload' command} {r module unload}
        assert_error {ERR wrong number of arguments for 'module|unload' command} {
            r module unload a b
        }
        set help [r module help]
        assert_match {MODULE <subcommand> *} [lindex $help 0]
        foreach sub {LIST LOAD LOADEX UNLOAD HELP} {assert_match "*$sub*" $help}
    }

    test {MODULE subcommands in COMMAND INFO} {
        foreach {cmd arity flags} {
            module|list 2 {admin noscript}
            module|load -3 {admin noscript no_async_loading}
            module|loadex -3 {admin noscript no_async_loading}
            module|unload 3 {admin noscript no_async_loading}
            module|help 2 {loading stale}
        } {
            set info [lindex [r command info $cmd] 0]
            assert_equal [list $cmd $arity $flags] [lrange $info 0 2]
        }
    }
}

start_server {tags {module external:skip} overrides {enable-module-command yes}} {
    test {MODULE LOAD of a missing library fails and logs why} {
        assert_error {ERR Error loading the extension. Please check the server logs.} {
            r module load /no/such/dir/module.so
        }
        wait_for_log_message {*Module /no/such/dir/module.so failed to load: /no/such/dir/module.so: cannot open shared object file: No such file or directory*}
        assert_error {ERR Error loading the extension. Please check the server logs.} {
            r module load /no/such/dir/module.so some args
        }
        assert_equal {} [r module list]
    }

    test {MODULE LOADEX checks its CONFIG and ARGS before failing as LOAD does} {
        set failed {ERR Error loading the extension. Please check the server logs.}
        assert_error $failed {r module loadex /no/such/dir/module.so CONFIG name}
        wait_for_log_message {*CONFIG specified without name value pair*}
        assert_error $failed {r module loadex /no/such/dir/module.so bogus}
        wait_for_log_message {*Syntax Error from arguments to loadex around bogus.*}
        assert_error $failed {
            r module loadex /no/such/dir/module.so CONFIG a b CONFIG c d ARGS x y
        }
    }

    test {MODULE UNLOAD of a module that is not loaded} {
        assert_error {ERR Error unloading module: no such module with that name} {
            r module unload nosuchmodule
        }
    }
}

tags {module external:skip} {
    test {A loadmodule directive naming a missing module stops the start} {
        lassign [run_server_briefly [list --port [::server::find_free_port] --bind 127.0.0.1 \
            --save "" --loadmodule /no/such/dir/module.so]] status output
        assert_equal "exit 1" $status
        assert_match "*Module /no/such/dir/module.so failed to load: /no/such/dir/module.so: cannot open shared object file: No such file or directory*" $output
        assert_match "*Can't load module from /no/such/dir/module.so: server aborting*" $output
    }
}
