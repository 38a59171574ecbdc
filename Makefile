# peerscan — see README.md. Every target installs the Debian packages it needs first (scripts/install-deps).
SWIFT ?= swift
# A virtual environment on Debian's interpreter (which has python3-zeroconf and python3-pytest from
# scripts/install-deps) with the PyPI varlink client the integration tests talk to peerscand with.
VENV ?= .venv
PYTHON = $(VENV)/bin/python

.PHONY: all deps build test unit-test integration-test demo bench clean

all: build

deps:
	@scripts/install-deps
	@test -x $(PYTHON) || /usr/bin/python3 -m venv --system-site-packages $(VENV)
	@$(PYTHON) -c "import varlink" 2>/dev/null || \
		$(PYTHON) -m pip install --quiet --disable-pip-version-check varlink==31.0.0

build: deps
	$(SWIFT) build

# What CI runs (.ci/run): every Swift test, then the integration tests on a real test LAN (needs root).
test: build
	$(SWIFT) test --no-parallel
	$(PYTHON) -m pytest -v Tests/Integration

unit-test: deps
	$(SWIFT) test --no-parallel

integration-test: build
	$(PYTHON) -m pytest -v Tests/Integration

# The main job: a test LAN in network namespaces with peers that come, change and go, watched by peerscand.
demo: build
	$(PYTHON) -m testlan demo $(if $(DURATION),--duration $(DURATION))

bench: deps
	$(SWIFT) run -c release peerscan-bench diff --count 1000 --count 10000 --count 100000 --sections 1 --sections 10

clean:
	$(SWIFT) package clean
	/usr/bin/python3 -m testlan cleanup
