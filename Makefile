# redis-tp build. `make` builds src/redis-server, `make test` runs every test, `make run`
# starts the server with ./redis.conf, `make SANITIZE=1 ...` builds with ASan+UBSan into a
# separate object tree, `make WERROR=1 ...` turns warnings into errors (CI). Missing Debian
# packages are installed by deps/install-deps.sh first.

CXX ?= g++
SANITIZE ?= 0
JOBS ?= 2
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(JOBS)
endif

# Lua 5.1 and the two Lua libraries Debian packages (cjson, bit) for scripting.
LUA_CFLAGS := -I/usr/include/lua5.1
BASE_CXXFLAGS := -std=c++20 -Wall -Wextra -Wno-missing-field-initializers -g -MMD -MP -Isrc $(LUA_CFLAGS)
LUA_LIBS := -llua5.1-cjson -llua5.1-bitop -llua5.1
LDLIBS := -levent -lssl -lcrypto -llzf -lpthread $(LUA_LIBS) -lsystemd

# The sanitizer flavour is built with clang (SANITIZE_CXX): its ASan+UBSan build is about three
# times faster than GCC's, and its objects carry libFuzzer's coverage instrumentation
# (fuzzer-no-link: counters only, no libFuzzer runtime), so the fuzzers of tests/fuzz link the
# same objects instead of compiling every source a third time.
ifeq ($(SANITIZE),1)
  SANITIZE_CXX ?= clang++
  CXX := $(SANITIZE_CXX)
  BUILD := build/sanitize
  OPT := -O1 -fno-omit-frame-pointer -fsized-deallocation \
    -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=address,undefined
else
  BUILD := build/release
  OPT := -O2 -DUSE_JEMALLOC
  LDLIBS += -ljemalloc
endif
# WERROR=1 (set by .ci/run) makes every warning of the project's own sources an error.
WERROR ?= 0
ifeq ($(WERROR),1)
  BASE_CXXFLAGS += -Werror
endif
CXXFLAGS += $(BASE_CXXFLAGS) $(OPT)

# Objects depend on the compiler and flags they were built with, not only on their sources: a
# tree built before a flag or compiler change (the sanitizer flavour moved from GCC to clang) is
# rebuilt whole instead of linking objects of two compilers together.
# -Werror is left out: it changes no object, only whether a warning stops the build.
FLAGS_STAMP := $(BUILD)/compile.flags
STAMPED_FLAGS := $(CXX) $(filter-out -Werror,$(CXXFLAGS))
$(shell mkdir -p $(BUILD) && { echo '$(STAMPED_FLAGS)' | cmp -s - $(FLAGS_STAMP) || \
  echo '$(STAMPED_FLAGS)' > $(FLAGS_STAMP); })

# Layers, lowest first. A layer may include only from layers listed before it
# (checked by utils/check-layers.sh, run by `make test`).
LAYERS := util protocol types db watch server acl scripting persistence replication cluster commands
LIB_SRCS := $(foreach l,$(LAYERS),$(wildcard src/$(l)/*.cc))
LIB_OBJS := $(LIB_SRCS:src/%.cc=$(BUILD)/%.o)
MAIN_OBJ := $(BUILD)/main.o
SERVER := src/redis-server
SERVER_BIN := $(BUILD)/redis-server

UNIT_SRCS := $(wildcard tests/cpp/*.cc)
UNIT_OBJS := $(UNIT_SRCS:tests/cpp/%.cc=$(BUILD)/tests/%.o)
UNIT_BIN := $(BUILD)/unit-tests

.PHONY: all deps run test test-unit test-tcl clean bench check-layers

all: deps
	@$(MAKE) --no-print-directory $(SERVER_BIN)
	@cmp -s $(SERVER_BIN) $(SERVER) || cp -f $(SERVER_BIN) $(SERVER)

deps:
	@deps/install-deps.sh

# One static library per layer ($(BUILD)/lib/libtp_<layer>.a). The server links them from the
# top layer down, so the linker cannot resolve a lower layer's need for a higher layer's symbol
# from a library it has already passed; utils/check-link-layers.sh makes that exact (every
# undefined symbol of every layer against the definitions above it) and runs before each link of
# the server: an upward dependency fails the build, whether or not an #include shows it.
LAYER_LIB = $(BUILD)/lib/libtp_$(1).a
reverse = $(if $(1),$(call reverse,$(wordlist 2,$(words $(1)),$(1))) $(firstword $(1)))
LAYER_LIBS := $(foreach l,$(LAYERS),$(call LAYER_LIB,$(l)))
LAYER_LIBS_TOP_DOWN := $(foreach l,$(call reverse,$(LAYERS)),$(call LAYER_LIB,$(l)))
define LAYER_LIB_RULE
$(call LAYER_LIB,$(1)): $(patsubst src/%.cc,$(BUILD)/%.o,$(wildcard src/$(1)/*.cc))
	@mkdir -p $$(dir $$@)
	@rm -f $$@
	@ar rcs $$@ $$^
endef
$(foreach l,$(LAYERS),$(eval $(call LAYER_LIB_RULE,$(l))))

$(BUILD)/lib/layers.checked: $(LAYER_LIBS) utils/check-link-layers.sh
	@utils/check-link-layers.sh $(BUILD) $(LAYERS)
	@touch $@

# The binary is linked per flavour and copied to src/redis-server, so switching between
# SANITIZE=0 and SANITIZE=1 always leaves the flavour just asked for in place.
# -rdynamic exports the server's function names, so a crash report's backtrace shows them.
$(SERVER_BIN): $(MAIN_OBJ) $(LAYER_LIBS) $(BUILD)/lib/layers.checked
	$(CXX) $(LDFLAGS) -rdynamic -o $@ $(MAIN_OBJ) $(LAYER_LIBS_TOP_DOWN) $(LDLIBS)

$(BUILD)/%.o: src/%.cc $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c $< -o $@

$(BUILD)/tests/%.o: tests/cpp/%.cc $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c $< -o $@

$(UNIT_BIN): $(LIB_OBJS) $(UNIT_OBJS)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lgtest -lgtest_main

run: all
	$(SERVER) redis.conf

test: deps
	@$(MAKE) --no-print-directory $(SERVER_BIN) $(UNIT_BIN)
	@cmp -s $(SERVER_BIN) $(SERVER) || cp -f $(SERVER_BIN) $(SERVER)
	@tests/run-all.sh $(UNIT_BIN)

test-unit: deps
	@$(MAKE) --no-print-directory $(UNIT_BIN)
	@$(UNIT_BIN)

test-tcl: all
	@tclsh tests/test_helper.tcl $(TCL_ARGS)

check-layers:
	@utils/check-layers.sh
	@$(MAKE) --no-print-directory $(BUILD)/lib/layers.checked

bench: all
	@deps/install-deps.sh --bench
	@utils/bench-vs-redis.sh

clean:
	rm -rf build src/redis-server tests/tmp

-include $(LIB_OBJS:.o=.d) $(MAIN_OBJ:.o=.d) $(UNIT_OBJS:.o=.d)

# ---- client library (libredistp) and its tests ----------------------------------------------
# src/client is a component of its own, not a server layer: it includes nothing from the server
# (utils/check-layers.sh checks it) and is archived into $(BUILD)/libredistp.a, built by `make`
# too. Its GoogleTest binary $(BUILD)/client-tests starts a real $(BUILD)/redis-server on a free
# loopback port; tests/run-all.sh runs it after the unit tests.
CLIENT_SRCS := $(wildcard src/client/*.cc)
CLIENT_OBJS := $(CLIENT_SRCS:src/%.cc=$(BUILD)/%.o)
CLIENT_LIB := $(BUILD)/libredistp.a
CLIENT_LDLIBS := -lhiredis -levent -lpthread
CLIENT_TEST_SRCS := $(wildcard tests/cpp/client/*.cc)
CLIENT_TEST_OBJS := $(CLIENT_TEST_SRCS:tests/cpp/%.cc=$(BUILD)/tests/%.o)
CLIENT_TEST_BIN := $(BUILD)/client-tests

.PHONY: client client-tests
all: client
test: client-tests

client: deps
	@$(MAKE) --no-print-directory $(CLIENT_LIB)

# Everything that links the library waits for `client`, so parallel sub-makes never build the
# same object twice.
client-tests: client
	@$(MAKE) --no-print-directory $(CLIENT_TEST_BIN)

$(CLIENT_LIB): $(CLIENT_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(CLIENT_TEST_BIN): $(CLIENT_TEST_OBJS) $(CLIENT_LIB)
	$(CXX) $(LDFLAGS) -o $@ $(CLIENT_TEST_OBJS) $(CLIENT_LIB) $(CLIENT_LDLIBS) -lgtest -lgtest_main

-include $(CLIENT_OBJS:.o=.d) $(CLIENT_TEST_OBJS:.o=.d)
# ---- end of client library section ------------------------------------------------------------

# ---- command-line tools (redis-tp-lock, redis-tp-watch, redis-tp-elect) ------------------------
# Built on libredistp (src/tools includes only src/client and src/util), linked per flavour in
# $(BUILD) and copied to src/ like the server, by `make` and `make test` (tests/unit/tools*.tcl).
TOOLS := redis-tp-lock redis-tp-watch redis-tp-elect
TOOL_BINS := $(TOOLS:%=$(BUILD)/%)
TOOL_COMMON_OBJS := $(BUILD)/tools/tool_common.o $(BUILD)/tools/command_runner.o \
  $(BUILD)/tools/hold_deadline.o $(BUILD)/tools/pattern_feed.o
TOOL_OBJS := $(TOOLS:%=$(BUILD)/tools/%.o) $(TOOL_COMMON_OBJS)

.PHONY: tools clean-tools
all: tools
test: tools
clean: clean-tools

tools: client
	@$(MAKE) --no-print-directory $(TOOL_BINS)
	@for t in $(TOOLS); do cmp -s $(BUILD)/$$t src/$$t || cp -f $(BUILD)/$$t src/$$t; done

$(BUILD)/redis-tp-%: $(BUILD)/tools/redis-tp-%.o $(TOOL_COMMON_OBJS) $(CLIENT_LIB)
	$(CXX) $(LDFLAGS) -o $@ $^ $(CLIENT_LDLIBS)

clean-tools:
	rm -f $(TOOLS:%=src/%)

-include $(TOOL_OBJS:.o=.d)
# ---- end of command-line tools section ---------------------------------------------------------

# ---- fuzzers (libFuzzer) -----------------------------------------------------------------------
# `make fuzz` builds the libFuzzer harnesses of tests/fuzz/ into build/fuzz, linked against the
# sanitizer flavour's objects (build/sanitize, clang, ASan + UBSan + coverage counters): from the
# release flavour it runs itself with SANITIZE=1, so `make test` builds that tree once and a later
# `make SANITIZE=1 test` (CI's second half) finds it built. `make fuzz-run FUZZ_SECONDS=N` runs each
# for N seconds on a copy of its seed corpus (tests/fuzz/make-corpus.py); tests/run-all.sh runs it
# briefly as part of `make test`.
FUZZ_BUILD := build/fuzz
FUZZERS := request_parser_fuzz dispatch_fuzz rdb_load_fuzz lua_fuzz bus_message_fuzz
FUZZ_BINS := $(FUZZERS:%=$(FUZZ_BUILD)/%)
FUZZ_LINK := $(CXX) -fsanitize=fuzzer,address,undefined
FUZZ_SECONDS ?= 10

.PHONY: fuzz fuzz-run
test: fuzz

ifeq ($(SANITIZE),1)
fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
else
fuzz: deps
	@$(MAKE) --no-print-directory SANITIZE=1 fuzz
endif

$(FUZZ_BUILD)/obj/fuzz/%.o: tests/fuzz/%.cc $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c $< -o $@

$(FUZZ_BUILD)/request_parser_fuzz: $(FUZZ_BUILD)/obj/fuzz/request_parser_fuzz.o \
    $(BUILD)/protocol/request_parser.o $(BUILD)/util/numbers.o
	$(FUZZ_LINK) -o $@ $^

$(FUZZ_BUILD)/bus_message_fuzz: $(FUZZ_BUILD)/obj/fuzz/bus_message_fuzz.o \
    $(BUILD)/cluster/bus_message.o
	$(FUZZ_LINK) -o $@ $^

$(FUZZ_BUILD)/dispatch_fuzz $(FUZZ_BUILD)/rdb_load_fuzz $(FUZZ_BUILD)/lua_fuzz: \
    $(FUZZ_BUILD)/%: $(FUZZ_BUILD)/obj/fuzz/%.o $(LIB_OBJS)
	$(FUZZ_LINK) -o $@ $^ $(LDLIBS)

fuzz-run: fuzz
	@tests/fuzz/run.sh $(FUZZ_SECONDS)

-include $(FUZZERS:%=$(FUZZ_BUILD)/obj/fuzz/%.d)
# ---- end of fuzzers section --------------------------------------------------------------------

# ---- differential tester (utils/difftest) -----------------------------------------------------
# $(BUILD)/difftest starts Debian's /usr/bin/redis-server and $(BUILD)/redis-server side by side
# and compares their replies to a reproducible stream of random commands (utils/difftest/*.h).
# A tool, not part of the server: it uses only hiredis and the C++ standard library. `make test`
# runs a bounded fixed-seed run as one test line (tests/run-all.sh); utils/difftest.sh runs more.
DIFFTEST_SRCS := $(wildcard utils/difftest/*.cc)
DIFFTEST_OBJS := $(DIFFTEST_SRCS:utils/difftest/%.cc=$(BUILD)/difftest-obj/%.o)
DIFFTEST_BIN := $(BUILD)/difftest

.PHONY: difftest
test: difftest

difftest: deps
	@$(MAKE) --no-print-directory $(DIFFTEST_BIN)

$(BUILD)/difftest-obj/%.o: utils/difftest/%.cc $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) $(BASE_CXXFLAGS) -O2 -c $< -o $@

$(DIFFTEST_BIN): $(DIFFTEST_OBJS)
	$(CXX) $(LDFLAGS) -o $@ $^ -lhiredis

-include $(DIFFTEST_OBJS:.o=.d)
# ---- end of differential tester section -------------------------------------------------------

# ---- test support: the fault-injection shim ---------------------------------------------------
# tests/support/faultinject.c, a small LD_PRELOAD library that makes write/fsync/rename/fork
# fail on demand (tests/integration/faults-*.tcl load it into redis-tp and into Debian's
# redis-server alike). Plain C, not sanitized, one copy for every flavour.
FAULTINJECT := build/test-support/faultinject.so

.PHONY: test-support
test: test-support

test-support:
	@$(MAKE) --no-print-directory $(FAULTINJECT)

$(FAULTINJECT): tests/support/faultinject.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -shared -fPIC -o $@ $< -ldl
# ---- end of test support section ---------------------------------------------------------------

# ---- install / uninstall -----------------------------------------------------------------------
# `make install [PREFIX=/usr/local] [DESTDIR=]` puts what `make` built where Redis's own
# `make install` puts redis-server (PREFIX/bin), plus the tools, libredistp (static library,
# headers under PREFIX/include/redistp/client, a pkg-config file `redistp`), the reference docs
# (PREFIX/share/doc/redis-tp), the manual pages (docs/man: redis-server(1), the tools' pages,
# libredistp(3) in PREFIX/share/man) and, for a system install, the example redis.conf, systemd
# unit and logrotate file (PREFIX/share/redis-tp). DESTDIR stages the whole tree under another root (for
# packaging). `make uninstall` removes exactly those files. Nothing here starts a service or
# touches /etc: see README, "Installing".
PREFIX ?= /usr/local
# Where the library and its pkg-config file go; the Debian package sets the multiarch directory
# (/usr/lib/<triplet>), as Debian's own -dev packages do.
LIBDIR ?= $(PREFIX)/lib
INSTALL ?= install
INSTALL_ROOT := $(DESTDIR)$(PREFIX)
LIB_ROOT := $(DESTDIR)$(LIBDIR)
TP_VERSION := $(shell sed -n 's/.*kRedisTpVersion = "\(.*\)";/\1/p' src/server/version.h)
CLIENT_HEADERS := $(wildcard src/client/*.h)
DOC_FILES := README.md $(wildcard docs/*.md)
SHARE_FILES := redis.conf utils/systemd/redis-server.service utils/logrotate/redis-server
MAN1_PAGES := $(wildcard docs/man/*.1)
MAN3_PAGES := $(wildcard docs/man/*.3)

.PHONY: install uninstall
install: all
	$(INSTALL) -d $(INSTALL_ROOT)/bin $(LIB_ROOT)/pkgconfig \
	  $(INSTALL_ROOT)/include/redistp/client $(INSTALL_ROOT)/share/doc/redis-tp \
	  $(INSTALL_ROOT)/share/redis-tp $(INSTALL_ROOT)/share/man/man1 $(INSTALL_ROOT)/share/man/man3
	$(INSTALL) -m 755 $(SERVER_BIN) $(INSTALL_ROOT)/bin/redis-server
	for t in $(TOOLS); do $(INSTALL) -m 755 $(BUILD)/$$t $(INSTALL_ROOT)/bin/$$t || exit 1; done
	$(INSTALL) -m 644 $(CLIENT_LIB) $(LIB_ROOT)/libredistp.a
	$(INSTALL) -m 644 $(CLIENT_HEADERS) $(INSTALL_ROOT)/include/redistp/client/
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))' \
	  'includedir=$${prefix}/include/redistp' '' 'Name: redistp' \
	  'Description: C++ client library for redis-tp: locks, elections, sessions, watches' \
	  'Version: $(TP_VERSION)' 'Requires: hiredis libevent' \
	  'Libs: -L$${libdir} -lredistp -lpthread' 'Cflags: -I$${includedir} -std=c++20' \
	  > $(LIB_ROOT)/pkgconfig/redistp.pc
	chmod 644 $(LIB_ROOT)/pkgconfig/redistp.pc
	$(INSTALL) -m 644 $(DOC_FILES) $(INSTALL_ROOT)/share/doc/redis-tp/
	$(INSTALL) -m 644 $(SHARE_FILES) $(INSTALL_ROOT)/share/redis-tp/
	$(INSTALL) -m 644 $(MAN1_PAGES) $(INSTALL_ROOT)/share/man/man1/
	$(INSTALL) -m 644 $(MAN3_PAGES) $(INSTALL_ROOT)/share/man/man3/

uninstall:
	rm -f $(INSTALL_ROOT)/bin/redis-server $(TOOLS:%=$(INSTALL_ROOT)/bin/%) \
	  $(LIB_ROOT)/libredistp.a $(LIB_ROOT)/pkgconfig/redistp.pc \
	  $(CLIENT_HEADERS:src/client/%=$(INSTALL_ROOT)/include/redistp/client/%) \
	  $(addprefix $(INSTALL_ROOT)/share/doc/redis-tp/,$(notdir $(DOC_FILES))) \
	  $(addprefix $(INSTALL_ROOT)/share/redis-tp/,$(notdir $(SHARE_FILES))) \
	  $(addprefix $(INSTALL_ROOT)/share/man/man1/,$(notdir $(MAN1_PAGES))) \
	  $(addprefix $(INSTALL_ROOT)/share/man/man3/,$(notdir $(MAN3_PAGES)))
	-rmdir $(INSTALL_ROOT)/include/redistp/client $(INSTALL_ROOT)/include/redistp \
	  $(INSTALL_ROOT)/share/doc/redis-tp $(INSTALL_ROOT)/share/redis-tp 2>/dev/null
# ---- end of install section --------------------------------------------------------------------

# ---- Debian package ----------------------------------------------------------------------------
# `make deb`: build/deb/redis-tp-server_<version>-1_<arch>.deb, which replaces Debian's
# redis-server in its layout (utils/deb/build.sh; README "Installing over Debian's Redis").
.PHONY: deb
deb: all
	+@utils/deb/build.sh
