# peerscan — see README.md. Every target installs the Debian packages it needs first (scripts/install-deps).
SWIFT ?= swift
# A virtual environment on Debian's interpreter (which has python3-zeroconf and python3-pytest from
# scripts/install-deps) with the PyPI varlink client the integration tests talk to peerscand with.
VENV ?= .venv
PYTHON = $(VENV)/bin/python

# Installation (make install [PREFIX=/usr/local] [DESTDIR=]): binaries, systemd units, the sysusers file, manual pages
# and shell completions. CONFIGURATION=debug installs the development build (the tests check the layout with it).
PREFIX ?= /usr/local
DESTDIR ?=
CONFIGURATION ?= release
BINDIR = $(PREFIX)/bin
UNITDIR = $(PREFIX)/lib/systemd/system
SYSUSERSDIR = $(PREFIX)/lib/sysusers.d
MANDIR = $(PREFIX)/share/man
DOCS = .build/docs

.PHONY: all deps build test fuzz unit-test integration-test check-imports check-units check-install demo bench bench-scanner bench-registry bench-mqtt install docs clean

all: build

deps:
	@scripts/install-deps
	@test -x $(PYTHON) || /usr/bin/python3 -m venv --system-site-packages $(VENV)
	@$(PYTHON) -c "import varlink" 2>/dev/null || \
		$(PYTHON) -m pip install --quiet --disable-pip-version-check varlink==31.0.0

build: deps
	$(SWIFT) build

# What CI runs (.ci/run): every Swift test, every import declared, the systemd units' lint and score, the install
# layout, the integration tests on a real test LAN (needs root), then a minute of fuzzing.
test: build
	$(SWIFT) test --no-parallel
	scripts/check-imports
	scripts/check-units
	scripts/check-install
	$(PYTHON) -m pytest -v Tests/Integration
	$(MAKE) fuzz FUZZ_SECONDS=60

# libFuzzer over Varlink framing and request decoding (Sources/peerscan-fuzz), with AddressSanitizer, for
# FUZZ_SECONDS: new inputs go to .build-fuzz/corpus, Tests/Fuzz/corpus holds the committed seeds; a crash leaves
# .build-fuzz/crash-* (replay: .build-fuzz/debug/peerscan-fuzz FILE) and fails. Make each one a regression test.
FUZZ_SECONDS ?= 300
fuzz: deps
	$(SWIFT) build --product peerscan-fuzz --build-path .build-fuzz \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DFUZZING
	mkdir -p .build-fuzz/corpus
	.build-fuzz/debug/peerscan-fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -print_final_stats=1 \
		-artifact_prefix=.build-fuzz/ .build-fuzz/corpus Tests/Fuzz/corpus

unit-test: deps
	$(SWIFT) test --no-parallel

integration-test: build
	$(PYTHON) -m pytest -v Tests/Integration

# The scanner's benchmarks on the test LAN (root): 250 silent hosts against arp-scan, presence, flaps under 1 % loss.
bench-scanner: build
	/usr/bin/python3 benchmarks/scanner.py sweep --hosts 250
	/usr/bin/python3 benchmarks/scanner.py presence --rounds 3
	/usr/bin/python3 benchmarks/scanner.py presence --rounds 3 --unprivileged
	/usr/bin/python3 benchmarks/scanner.py flaps --minutes 10 --hosts 20 --loss 1

# The registry's benchmarks (root): startup with 10,000 known devices against an empty registry; churn.
bench-registry: build
	$(PYTHON) benchmarks/registry.py startup --devices 10000 --rounds 3
	$(PYTHON) benchmarks/registry.py churn --devices 1000 --rate 100 --seconds 60

# The MQTT mirror's benchmark (root): 10,000 devices published to a real mosquitto in a namespace of its own, the
# delay of 1,000 single-device changes, the republication after a broker restart.
bench-mqtt: build
	$(PYTHON) benchmarks/mqtt.py --devices 10000 --changes 1000 --rate 100

# The main job: a test LAN in network namespaces with peers that come, change and go, watched by peerscand.
demo: build
	$(PYTHON) -m testlan demo $(if $(DURATION),--duration $(DURATION))

check-imports:
	scripts/check-imports

check-units: deps
	scripts/check-units

check-install: build
	scripts/check-install

docs: build
	scripts/generate-docs $(DOCS)

install: deps
	$(SWIFT) build -c $(CONFIGURATION) $(if $(filter release,$(CONFIGURATION)),--static-swift-stdlib)
	scripts/generate-docs $(DOCS)
	install -D -m 0755 "$$($(SWIFT) build -c $(CONFIGURATION) --show-bin-path)/peerscand" "$(DESTDIR)$(BINDIR)/peerscand"
	install -D -m 0755 "$$($(SWIFT) build -c $(CONFIGURATION) --show-bin-path)/peerscanctl" "$(DESTDIR)$(BINDIR)/peerscanctl"
	install -d "$(DESTDIR)$(UNITDIR)"
	sed 's|/usr/local/bin/|$(BINDIR)/|' systemd/peerscand.service > "$(DESTDIR)$(UNITDIR)/peerscand.service"
	install -m 0644 systemd/peerscand.socket "$(DESTDIR)$(UNITDIR)/peerscand.socket"
	install -D -m 0644 systemd/peerscan.sysusers "$(DESTDIR)$(SYSUSERSDIR)/peerscan.conf"
	install -D -m 0644 systemd/peerscand-probe.conf "$(DESTDIR)$(PREFIX)/share/doc/peerscan/peerscand-probe.conf"
	install -d "$(DESTDIR)$(PREFIX)/share/doc/peerscan"
	sed 's|/usr/local/bin/|$(BINDIR)/|' systemd/peerscand-mqtt.conf > "$(DESTDIR)$(PREFIX)/share/doc/peerscan/peerscand-mqtt.conf"
	install -D -m 0644 $(DOCS)/man1/peerscanctl.1 "$(DESTDIR)$(MANDIR)/man1/peerscanctl.1"
	install -D -m 0644 $(DOCS)/man8/peerscand.8 "$(DESTDIR)$(MANDIR)/man8/peerscand.8"
	install -D -m 0644 $(DOCS)/completions/bash/peerscanctl "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/peerscanctl"
	install -D -m 0644 $(DOCS)/completions/zsh/_peerscanctl "$(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_peerscanctl"
	install -D -m 0644 $(DOCS)/completions/fish/peerscanctl.fish "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/peerscanctl.fish"
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then \
		systemd-sysusers "$(SYSUSERSDIR)/peerscan.conf"; \
		if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi; \
		echo "installed; now: systemctl enable --now peerscand.socket && peerscanctl watch"; \
	fi

bench: deps
	$(SWIFT) run -c release peerscan-bench diff --count 1000 --count 10000 --count 100000 --sections 1 --sections 10

clean:
	$(SWIFT) package clean
	/usr/bin/python3 -m testlan cleanup
