# shb — one static musl binary; see docs/development.md for the targets.
#
#   make            ./shb: static, musl, -O2, BearSSL linked in; ./shb.1 (the man page) and the
#                   completion scripts (build/completions/), both made from cli.c's option table
#   make install    ./shb, shb.1 and the completions under $(DESTDIR)$(PREFIX) (/usr/local); make uninstall
#   make asan       build/asan/shb: glibc + ASan + UBSan, with the test knobs (tests run it too)
#   make glibc      build/glibc/shb: plain glibc build, for valgrind's heap summary
#   make test       unit tests (sanitized), fuzz seeds, end-to-end tests; last line "N passed, N failed"
#                   (make -j$(nproc) test builds in parallel, as .ci/run does)
#   make hostile    the hostile-server suites alone, both builds
#   make fuzz       build/fuzz/fuzz_*: libFuzzer targets (clang), each run FUZZ_SECONDS (60) on its corpus
#   make fuzz-seeds the hostile-server cases' bytes into the seed corpora
#   make demo       load a local nginx that it starts itself, print the report
#   make bench      shb beside wrk and h2load on one local nginx (not a test)

MUSLCC  ?= musl-gcc
CC      ?= cc
BEARSSL_A ?= /usr/lib/x86_64-linux-gnu/libbearssl.a

WARN = -Wall -Wextra -Werror -Wshadow -Wvla -Wstrict-prototypes \
       -Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wundef \
       -Wconversion -Wsign-conversion -Wswitch-enum
# -MMD -MP: each compile writes which headers it read (build/**/*.d, read
# back at the end of this file), so a header change rebuilds what uses it.
BASE = -std=gnu11 -g $(WARN) -MMD -MP -isystem build/inc -I.

# Every source file but main's (shb.c) and the musl link's compat.c: the
# folders are the design (docs/internals.md, The source tree).
CORE = $(filter-out shb.c compat.c,$(wildcard *.c)) \
       $(foreach d,worker stats report cli uring tls13 quic,$(wildcard $(d)/*.c))
# compat.c supplies the glibc fortify symbols Debian's libbearssl.a calls;
# only the musl link needs it (glibc has its own).
UNIT = $(patsubst test/unit/%.c,%,$(wildcard test/unit/unit_*.c))

musl_OBJ  = $(patsubst %.c,build/musl/%.o,$(CORE) compat.c shb.c)
asan_OBJ  = $(patsubst %.c,build/asan/%.o,$(CORE) shb.c)
glibc_OBJ = $(patsubst %.c,build/glibc/%.o,$(CORE) shb.c)
asan_CORE = $(patsubst %.c,build/asan/%.o,$(CORE))

MUSL_CFLAGS  = $(BASE) -O2
ASAN_CFLAGS  = $(BASE) -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# The test build's start-value knobs (SHB_TEST_H2_FIRST_STREAM_ID,
# SHB_TEST_QUIC_*: shb.c, test/e2e/e2e_longrun.sh); ./shb never has them.
ASAN_CFLAGS += -DSHB_TEST_KNOBS
GLIBC_CFLAGS = $(BASE) -O2

.PHONY: all asan glibc doc install uninstall test test-build hostile hostile-readme unit fuzz fuzz-build fuzz-seeds demo bench deps clean interop interop-readme FORCE
all: shb doc

# The version (-V, the man page): scripts/version.sh runs every time but
# rewrites build/version.h only when the version changed (a new commit, a
# tag, a tree turning dirty), and only version.c includes it: a new commit
# recompiles that one file and relinks, and no object keeps a stale version.
build/version.h: FORCE
	$(Q)sh scripts/version.sh $@
$(foreach f,musl asan glibc fuzz/obj,build/$(f)/cli/version.o): build/version.h

# musl-gcc sees no system headers, so BearSSL's headers are linked into a
# private include directory; nothing else from /usr/include leaks in.
build/inc/.stamp:
	@test -f /usr/include/bearssl.h || { echo "BearSSL headers missing: run scripts/deps.sh"; exit 1; }
	mkdir -p build/inc
	ln -sfn /usr/include/bearssl.h /usr/include/bearssl build/inc/
	touch $@

# V=1 shows the full commands.
Q = $(if $(V),,@)

build/musl/%.o: %.c build/inc/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(MUSLCC) $(MUSL_CFLAGS) -c -o $@ $<
build/asan/%.o: %.c build/inc/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ASAN_CFLAGS) -c -o $@ $<
build/glibc/%.o: %.c build/inc/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(GLIBC_CFLAGS) -c -o $@ $<

shb: $(musl_OBJ) $(BEARSSL_A)
	@$(if $(Q),echo "  LD      $@ (static, musl)")
	$(Q)$(MUSLCC) -static -O2 -o $@ $(musl_OBJ) $(BEARSSL_A) -lpthread -lm

asan: build/asan/shb
build/asan/shb: $(asan_OBJ)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -fsanitize=address,undefined -o $@ $(asan_OBJ) $(BEARSSL_A) -lpthread -lm

glibc: build/glibc/shb
build/glibc/shb: $(glibc_OBJ)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -o $@ $(glibc_OBJ) $(BEARSSL_A) -lpthread -lm

# The man page and the completion scripts, from cli.c's option table:
# build/mkman (host compiler) links cli.c (and what it calls: auth.c, override.c, proxy.c,
# tls13/choice.c and names.c) and manpage.c and writes shb.1;
# the completions are what `./shb completions SHELL` prints.
MKMAN_OBJ = $(patsubst %.c,build/glibc/%.o,scripts/mkman.c cli/manpage.c cli/cli.c cli/auth.c cli/override.c \
            cli/proxy.c cli/fail_if.c cli/reqlist.c cli/reqlist_file.c cli/version.c stats/err_kind.c \
            tls13/choice.c tls13/names.c)
build/mkman: $(MKMAN_OBJ)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -o $@ $(MKMAN_OBJ)
shb.1: build/mkman
	@$(if $(Q),echo "  GEN     $@")
	$(Q)build/mkman > $@.tmp && mv -f $@.tmp $@
COMPLETIONS = build/completions/shb.bash build/completions/_shb build/completions/shb.fish
build/completions/shb.bash build/completions/_shb build/completions/shb.fish: shb
	@mkdir -p build/completions
	@$(if $(Q),echo "  GEN     $@")
	$(Q)./shb completions $(patsubst shb.%,%,$(patsubst _shb,zsh,$(notdir $@))) > $@.tmp && mv -f $@.tmp $@
doc: shb.1 $(COMPLETIONS)

# make install PREFIX=/usr/local DESTDIR=: the binary, the man page and the
# completions where bash-completion, zsh and fish look for them. zsh reads
# vendor-completions only under /usr (Debian's $fpath); under any other
# prefix its site-functions is the directory zsh searches.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
INSTALLED = $(BINDIR)/shb $(MANDIR)/man1/shb.1 $(BASHCOMPDIR)/shb $(ZSHCOMPDIR)/_shb $(FISHCOMPDIR)/shb.fish

install: shb shb.1 $(COMPLETIONS)
	install -d $(foreach f,$(INSTALLED),"$(DESTDIR)$(dir $(f))")
	install -m 755 shb "$(DESTDIR)$(BINDIR)/shb"
	install -m 644 shb.1 "$(DESTDIR)$(MANDIR)/man1/shb.1"
	install -m 644 build/completions/shb.bash "$(DESTDIR)$(BASHCOMPDIR)/shb"
	install -m 644 build/completions/_shb "$(DESTDIR)$(ZSHCOMPDIR)/_shb"
	install -m 644 build/completions/shb.fish "$(DESTDIR)$(FISHCOMPDIR)/shb.fish"

uninstall:
	rm -f $(foreach f,$(INSTALLED),"$(DESTDIR)$(f)")

# make bench's yardstick for what the first-byte phase costs: ./shb with
# that one histogram record compiled out (worker/meter.c). Users never get it.
NOFB_OBJ = $(filter-out build/musl/worker/meter.o,$(musl_OBJ)) build/bench-nofb/meter.o
build/bench-nofb/meter.o: worker/meter.c build/inc/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(MUSLCC) $(MUSL_CFLAGS) -DSHB_BENCH_NO_FIRST_BYTE -c -o $@ $<
build/bench-nofb/shb: $(NOFB_OBJ) $(BEARSSL_A)
	@$(if $(Q),echo "  LD      $@ (static, musl, no first-byte phase)")
	$(Q)$(MUSLCC) -static -O2 -o $@ $(NOFB_OBJ) $(BEARSSL_A) -lpthread -lm

# Unit tests: sanitized glibc build, one binary per test/unit/unit_*.c (as
# build/test/unit_*).
build/test/%: test/unit/%.c $(asan_CORE)
	@mkdir -p build/test
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(ASAN_CFLAGS) -o $@ $< $(asan_CORE) $(BEARSSL_A) -lpthread -lm

# The recorder that made test/vectors/quic_conn_trace.h (a dev tool, never
# run by make test; usage at the top of test/unit/quic_record.c).
build/test/quic_record: test/unit/quic_record.c $(asan_CORE)
	@mkdir -p build/test
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(ASAN_CFLAGS) -o $@ $< $(asan_CORE) $(BEARSSL_A) -lpthread -lm

# The BearSSL link check runs as a static musl binary: the shipping path.
build/test/musl_bearssl: test/unit/musl_bearssl.c build/musl/compat.o build/inc/.stamp
	@mkdir -p build/test
	@$(if $(Q),echo "  CCLD    $@ (static, musl)")
	$(Q)$(MUSLCC) $(MUSL_CFLAGS) -static -o $@ $< build/musl/compat.o $(BEARSSL_A)

unit: $(addprefix build/test/,$(UNIT)) build/test/musl_bearssl build/test/quic_record

# Fuzzing: one libFuzzer target per sans-I/O engine (test/fuzz/fuzz_*.c),
# built with clang against engine objects of their own (coverage-instrumented
# with -fsanitize=fuzzer-no-link). `make fuzz` runs each for FUZZ_SECONDS on
# build/fuzz/corpus/<target>, which starts as a copy of its seeds in
# test/fuzz/corpus/<target> and keeps what the fuzzer adds; crash
# reproducers land in build/fuzz/artifacts/<target>/. `make test` runs every
# target once over its seeds only (test/run.sh), never at random.
CLANG ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(patsubst test/fuzz/%.c,%,$(wildcard test/fuzz/fuzz_*.c))
# The fuzz targets link the engines and what reads users' files, not the
# worker's I/O.
FUZZ_CORE = $(filter-out worker/% uring/% report/live.c report/compare.c report/hdrlog.c,$(CORE)) worker/pace.c
FUZZ_CFLAGS = $(BASE) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
fuzz_OBJ = $(patsubst %.c,build/fuzz/obj/%.o,$(FUZZ_CORE))
.SECONDARY: $(fuzz_OBJ)

build/fuzz/obj/%.o: %.c build/inc/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<
build/fuzz/fuzz_%: test/fuzz/fuzz_%.c $(fuzz_OBJ)
	@mkdir -p build/fuzz
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(fuzz_OBJ) $(BEARSSL_A)

fuzz-build: $(addprefix build/fuzz/,$(FUZZ_TARGETS))

fuzz: deps-check fuzz-build
	@bash test/fuzz/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Every hostile-server case's bytes become a seed (test/fuzz/hostile_seeds.sh).
fuzz-seeds: deps-check shb
	@bash test/fuzz/hostile_seeds.sh

# What test/run.sh runs, built in one make: `make -j$(nproc) test` (as
# .ci/run does) builds them in parallel. test checks the dependencies
# first, then builds: a parallel build must not start compiling while
# scripts/deps.sh is still installing the compilers.
test-build: shb asan doc unit fuzz-build

test: deps-check
	@$(MAKE) --no-print-directory test-build
	@bash test/run.sh

# The hostile-server suites alone (make test runs them too), both builds.
hostile: deps-check shb asan
	@bash test/run.sh --only "e2e-hostile e2e-hostile-cases"

# docs/hostile.md's table of hostile cases, from test/hostile/cases_*.js.
hostile-readme:
	@node test/hostile/cases.js --update-readme docs/hostile.md

# The interop matrix (test/interop/interop.sh): every installable server,
# every protocol it speaks, three cases, with ./shb and build/asan/shb.
# interop-readme also writes the matrix into docs/interop.md.
INTEROP_SHBS = ./shb:musl build/asan/shb:asan
interop: deps-check shb asan
	@INTEROP_SHBS="$(INTEROP_SHBS)" bash test/interop/interop.sh
interop-readme: deps-check shb asan
	@INTEROP_SHBS="$(INTEROP_SHBS)" bash test/interop/interop.sh --readme

demo: deps-check-demo shb
	@bash scripts/demo.sh

bench: deps-check shb glibc build/bench-nofb/shb
	@bash scripts/bench.sh

deps:
	bash scripts/deps.sh

# deps-check: everything make test, fuzz and bench need; deps-check-demo:
# only what building shb and make demo need (scripts/deps.sh demo).
.PHONY: deps-check deps-check-demo
deps-check:
	@bash scripts/deps.sh --check >/dev/null 2>&1 || bash scripts/deps.sh
deps-check-demo:
	@bash scripts/deps.sh demo --check >/dev/null 2>&1 || bash scripts/deps.sh demo

clean:
	rm -rf build shb shb.1

# The headers each object and test binary was built from (-MMD -MP).
-include $(shell find build -name '*.d' 2>/dev/null)
