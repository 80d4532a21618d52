# HotelKit: the two commands a fresh machine needs are `make demo` and `make test`.
SWIFT ?= swift

.PHONY: deps build test demo sanitize fuzz screenshot format clean

deps:
	@scripts/ensure-deps

build: deps
	$(SWIFT) build

test: deps
	@python3 -c "import zeep" 2>/dev/null || python3 -m pip install -q zeep
	@python3 -c "import selenium" 2>/dev/null || python3 -m pip install -q selenium
	# The style is .swift-format's, and no file is over 450 lines: checked before anything is built (about
	# 10 s); `make format` applies the format.
	SWIFT=$(SWIFT) scripts/lint
	# The build fails on a warning in HotelKit's own files (scripts/build-tests). It also writes every
	# module's symbol graph, from which the DocC catalogues are built, failing on any warning (scripts/docs).
	mkdir -p .build/symbol-graphs/all
	SWIFT=$(SWIFT) scripts/build-tests -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$(CURDIR)/.build/symbol-graphs/all"
	SWIFT=$(SWIFT) DOCS_SCRATCH=.build scripts/docs --convert-only
	# Line by line: the test log then says which tests were running should one hang (scripts/watchdog names them).
	# --skip-build: the build above is the tests' (a build without its flags would compile everything again).
	stdbuf -oL -eL $(SWIFT) test --skip-build

# Release: the demo shows real speed (logo decoding is ~4x slower in a debug build).
demo: deps
	$(SWIFT) build -c release --product hotels
	"$$($(SWIFT) build -c release --show-bin-path)/hotels" demo --out demo-out

# Hardening (Sources/Runtime/Runtime.docc/Hardening.md): the tests under ThreadSanitizer, then AddressSanitizer with leak checks.
sanitize: deps
	@python3 -c "import zeep" 2>/dev/null || python3 -m pip install -q zeep
	@python3 -c "import selenium" 2>/dev/null || python3 -m pip install -q selenium
	scripts/sanitize

# Hardening: every libFuzzer target for FUZZ_SECONDS each (scripts/fuzz TARGET SECONDS runs one).
FUZZ_SECONDS ?= 600
fuzz: deps
	scripts/fuzz all $(FUZZ_SECONDS)

# The README's picture of the dashboard, taken again by the browser test that drives the real `hotels dashboard`.
screenshot: deps
	@python3 -c "import selenium" 2>/dev/null || python3 -m pip install -q selenium
	$(SWIFT) build --build-tests
	HOTELKIT_SCREENSHOT="$(CURDIR)/docs/dashboard-list.png" $(SWIFT) test --skip-build --filter fleetInChromium

format:
	SWIFT=$(SWIFT) scripts/lint --fix

clean:
	rm -rf .build .build-tsan .build-asan .build-fuzz
