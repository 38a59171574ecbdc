# peerscan — see README.md. Every target installs the Debian packages it needs first (scripts/install-deps).
SWIFT ?= swift
# Debian's interpreter: it has python3-zeroconf and python3-pytest from scripts/install-deps.
PYTHON ?= /usr/bin/python3

.PHONY: all deps build test unit-test integration-test demo bench clean

all: build

deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build

# What CI runs (.ci/run): every Swift test, then the integration tests on a real test LAN (needs root).
test: build
	$(SWIFT) test
	$(PYTHON) -m pytest -v Tests/Integration

unit-test: deps
	$(SWIFT) test

integration-test: build
	$(PYTHON) -m pytest -v Tests/Integration

# The main job: a test LAN in network namespaces with peers that come, change and go, watched by peerscand.
demo: build
	$(PYTHON) -m testlan demo $(if $(DURATION),--duration $(DURATION))

bench: deps
	$(SWIFT) run -c release peerscan-bench diff --count 1000 --count 10000 --count 100000 --sections 1 --sections 10

clean:
	$(SWIFT) package clean
	$(PYTHON) -m testlan cleanup
