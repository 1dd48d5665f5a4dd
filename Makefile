# redis-tp build. `make` builds src/redis-server, `make test` runs every test, `make run`
# starts the server with ./redis.conf, `make SANITIZE=1 ...` builds with ASan+UBSan into a
# separate object tree. Missing Debian packages are installed by deps/install-deps.sh first.

CXX ?= g++
SANITIZE ?= 0
JOBS ?= 2
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(JOBS)
endif

BASE_CXXFLAGS := -std=c++20 -Wall -Wextra -Wno-missing-field-initializers -g -MMD -MP -Isrc
LDLIBS := -levent -lcrypto -lpthread

ifeq ($(SANITIZE),1)
  BUILD := build/sanitize
  OPT := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=address,undefined
else
  BUILD := build/release
  OPT := -O2 -DUSE_JEMALLOC
  LDLIBS += -ljemalloc
endif
CXXFLAGS += $(BASE_CXXFLAGS) $(OPT)

# Layers, lowest first. A layer may include only from layers listed before it
# (checked by utils/check-layers.sh, run by `make test`).
LAYERS := util protocol types db watch server commands
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

# The binary is linked per flavour and copied to src/redis-server, so switching between
# SANITIZE=0 and SANITIZE=1 always leaves the flavour just asked for in place.
$(SERVER_BIN): $(LIB_OBJS) $(MAIN_OBJ)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: src/%.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c $< -o $@

$(BUILD)/tests/%.o: tests/cpp/%.cc
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

bench: all
	@deps/install-deps.sh --bench
	@utils/bench-vs-redis.sh

clean:
	rm -rf build src/redis-server tests/tmp

-include $(LIB_OBJS:.o=.d) $(MAIN_OBJ:.o=.d) $(UNIT_OBJS:.o=.d)
