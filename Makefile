# HotelKit: the two commands a fresh machine needs are `make demo` and `make test`.
SWIFT ?= swift

.PHONY: deps build test demo clean

deps:
	@scripts/ensure-deps

build: deps
	$(SWIFT) build

test: deps
	@python3 -c "import zeep" 2>/dev/null || python3 -m pip install -q zeep
	$(SWIFT) build --build-tests
	$(SWIFT) test

demo: deps
	$(SWIFT) build --product hotels
	scripts/demo "$$($(SWIFT) build --show-bin-path)/hotels"

clean:
	rm -rf .build
