# peerscan — see README.md. Every target installs the Debian packages it needs first (scripts/install-deps).
SWIFT ?= swift
# A virtual environment on Debian's interpreter (which has python3-zeroconf and python3-pytest from
# scripts/install-deps) with the PyPI varlink client the integration tests talk to peerscand with, ruff (Debian 12
# has no package of it) and Selenium (4.51.0: 4.52.0 needs a newer certifi than PyPI's mirror here has), which drives
# Debian's chromium through chromium-driver in the page's tests. The Python packages (testkit, testlan, testclient,
# benchmarks) are not installed: they import from the repository's root (pyproject.toml puts it on pytest's path;
# scripts run as `python3 -m` from the root).
VENV ?= .venv
PYTHON = $(VENV)/bin/python
RUFF_VERSION = 0.17.6
SELENIUM_VERSION = 4.51.0

# Installation (make install [PREFIX=/usr/local] [DESTDIR=] [UNITDIR=]): the one executable (PKGLIBDIR/peerscan) and
# the programs' links to it (BINDIR/peerscand, …), systemd units, the sysusers file,
# manual pages, shell completions, the Varlink interface and the Prometheus alerting rules. CONFIGURATION=debug installs the development build (the
# tests check the layout with it). The Debian package installs with PREFIX=/usr UNITDIR=/lib/systemd/system.
PREFIX ?= /usr/local
DESTDIR ?=
CONFIGURATION ?= release
BINDIR = $(PREFIX)/bin
PKGLIBDIR = $(PREFIX)/lib/peerscan
UNITDIR = $(PREFIX)/lib/systemd/system
SYSUSERSDIR = $(PREFIX)/lib/sysusers.d
MANDIR = $(PREFIX)/share/man
DOCS = .build/docs
# The programs the package's one executable is (a link of each name to $(PKGLIBDIR)/peerscan).
PROGRAMS = peerscand peerscanctl peerscan-web peerscan-alerts

.PHONY: all deps build release release-build deb deb-test lint test fuzz unit-test integration-test check-imports check-units check-install demo bench bench-scanner bench-presence bench-registry bench-first-answer bench-mqtt install docs clean ha-test radio-test demo-wifi bench-wifi bench-radio-flood bench-beacon-flood bench-web bench-metrics bench-alerts bench-footprint bench-package

all: build

deps:
	@scripts/install-deps
	@test -x $(PYTHON) || /usr/bin/python3 -m venv --system-site-packages $(VENV)
	@$(PYTHON) -c "import varlink" 2>/dev/null || \
		$(PYTHON) -m pip install --quiet --disable-pip-version-check varlink==31.0.0
	@test "$$($(VENV)/bin/ruff --version 2>/dev/null)" = "ruff $(RUFF_VERSION)" || \
		$(PYTHON) -m pip install --quiet --disable-pip-version-check ruff==$(RUFF_VERSION)
	@test "$$($(PYTHON) -c 'import selenium; print(selenium.__version__)' 2>/dev/null)" = "$(SELENIUM_VERSION)" || \
		$(PYTHON) -m pip install --quiet --disable-pip-version-check selenium==$(SELENIUM_VERSION)

# BUILT=1 (scripts/run-tests, after its build stage) skips the build, which costs ~13 s even when there is nothing to do.
build: deps
	$(if $(BUILT),,$(SWIFT) build)

# ruff over every Python file (rules in pyproject.toml) and swift-format over every Swift file (rules in
# .swift-format; `swift format -i FILE` fixes what it reports); `make test` runs both first, before the build.
lint: deps
	$(VENV)/bin/ruff check
	$(SWIFT) format lint --strict --parallel --recursive Sources Tests Package.swift

# What CI runs (.ci/run): the lint (ruff, swift-format), then scripts/run-tests, stage by stage, each timed: the debug
# build of every target and the tests; Wi-Fi and Bluetooth LE on simulated radios in a qemu guest (radio, ~18 min; the
# first run downloads Debian's kernel) in the background, beside a minute of fuzzing, the Debian package under a real
# systemd on a pristine Debian 12 (deb-test: the release build, then the checks of system-test in a container, ~15
# min), a real Home Assistant (ha-test, ~1 min; ~3-5 min cold), every import declared, the systemd units' lint and
# score, the install layout and the page; then, alone, every Swift test, the integration tests on a real test LAN
# (needs root; three at a time, ~10 min) and the reliability suite's bounded part (stress-ci, ~4 min): 44–46 min from a
# fresh clone (docs/benchmarks.md#ci).
test: lint
	MAKE="$(MAKE)" PYTHON="$(PYTHON)" RADIO_TESTS="$(RADIO_CI_TESTS)" RADIO_TIMEOUT="$(RADIO_TIMEOUT)" scripts/run-tests

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

# Every Swift test: first Diffable's exhaustive ones (pure CPU, ~65 s one at a time in a debug build) in parallel, then
# the rest one at a time, so that nothing CPU-heavy starves the timing-sensitive service tests on a 2-core machine.
# UNIT_TEST_FLAGS=--skip-build when the tests are built (scripts/run-tests).
UNIT_TEST_FLAGS ?=
unit-test: deps
	$(SWIFT) test $(UNIT_TEST_FLAGS) --filter ExhaustiveDiffTests
	$(SWIFT) test $(UNIT_TEST_FLAGS) --no-parallel --skip ExhaustiveDiffTests

integration-test: build
	$(PYTHON) -m pytest -v --durations=15 -n 3 --dist loadfile Tests/Integration

# A real Home Assistant Core as the judge of peerscand's MQTT discovery (root; Tests/HomeAssistant): it runs on the
# test LAN beside mosquitto and peerscand, and its own registries, states and log are checked through presence changes,
# peerscand restarts (SIGTERM, SIGKILL), a user's renames and a forget. scripts/install-home-assistant installs it
# from PyPI into /var/cache/peerscan/home-assistant/ (pinned, against its wheel's constraints; ~105 s cold, ~820 MB, then cached); the tests
# take ~50 s.
# A real Home Assistant Core (Tests/HomeAssistant) judges the MQTT discovery. It needs a Python >= 3.13 (the image's
# pyenv one; HA_PYTHON): without one it is skipped with a notice — except in CI (CI=true), where that is a failure.
HA_PYTHON ?= /root/.pyenv/versions/3.13.0/bin/python3
ha-test: build
	@if ! "$(HA_PYTHON)" -c 'import sys; sys.exit(sys.version_info < (3, 13))' 2>/dev/null; then \
		if [ -n "$$CI" ]; then echo "ha-test: no Python >= 3.13 at $(HA_PYTHON) (HA_PYTHON)" >&2; exit 1; fi; \
		echo "ha-test: SKIPPED: no Python >= 3.13 at $(HA_PYTHON) (set HA_PYTHON); Debian 12's 3.11 cannot run Home Assistant 2025"; \
	else \
		HA_PYTHON="$(HA_PYTHON)" scripts/install-home-assistant > /dev/null && \
		$(PYTHON) -m pytest -v -p no:cacheprovider Tests/HomeAssistant; \
	fi

# The scanner's benchmarks on the test LAN (root): 250 silent hosts on a /24 and 1,000 on a /22 against arp-scan,
# presence, flaps under 1 % loss.
bench-scanner: build
	/usr/bin/python3 -m benchmarks.scanner sweep --hosts 250
	/usr/bin/python3 -m benchmarks.scanner sweep --hosts 1000 --prefix 22
	/usr/bin/python3 -m benchmarks.scanner presence --rounds 3
	/usr/bin/python3 -m benchmarks.scanner presence --rounds 3 --unprivileged
	/usr/bin/python3 -m benchmarks.scanner flaps --minutes 10 --hosts 20 --loss 1

# Presence with Wi-Fi-like hosts (root; benchmarks/presence.py): 30 hosts whose ARP/NDP answers come 0.2-2.5 s late
# and 20-30 % never, 5 more that leave and come back, --probe-interval 5 --offline-after 20, PRESENCE_MINUTES each as
# root and as nobody (~2 x 11 min by default): false offline transitions, detection delays, arp-scan -l's finds.
PRESENCE_MINUTES ?= 10
bench-presence: build
	/usr/bin/python3 -m benchmarks.presence --minutes $(PRESENCE_MINUTES)
	/usr/bin/python3 -m benchmarks.presence --minutes $(PRESENCE_MINUTES) --unprivileged

# Alerts on the same Wi-Fi-like LAN (root; benchmarks/alerts.py): every host important, peerscan-alerts delivering to
# a webhook receiver; for ALERTS_MINUTES the delay from a transition to its alert at the receiver and the false offline
# alerts, then a receiver outage of ALERTS_MINUTES with a peerscand restart in it: alerts lost and doubled (~21 min).
ALERTS_MINUTES ?= 10
bench-alerts: build
	/usr/bin/python3 -m benchmarks.alerts --minutes $(ALERTS_MINUTES) --outage-minutes $(ALERTS_MINUTES)

# The first answer (root; benchmarks/first_answer.py): a fresh peerscand, exec to its first GetSnapshot answer, with and
# without avahi-daemon, with an empty registry and with one of 1,000 devices, against `avahi-browse -art` on the same
# test LAN; whether the three mDNS peers there are named in that first snapshot (~2 min).
bench-first-answer: build
	$(PYTHON) -m benchmarks.first_answer --rounds 5 --devices 1000

# The registry's benchmarks (root): startup with 10,000 known devices against an empty registry; churn.
bench-registry: build
	$(PYTHON) -m benchmarks.registry startup --devices 10000 --rounds 3
	$(PYTHON) -m benchmarks.registry churn --devices 1000 --rate 100 --seconds 60

# A home LAN at rest (root; release build as shipped; benchmarks/footprint.py): 15 mDNS hosts and 35 silent ones, a
# real avahi-daemon; peerscand's RSS (by kind) beside avahi-daemon's after a minute idle, then hyperfine times
# `peerscanctl list` against `ip neigh` and `avahi-browse -at` on the same LAN (~3 min).
bench-footprint: release-build
	PEERSCAND=.build/programs/peerscand PEERSCANCTL=.build/programs/peerscanctl \
		$(PYTHON) -m benchmarks.footprint --peers 15 --hosts 35 --idle-seconds 60 --runs 100

# The package's executables per way of shipping the Swift runtime (root; benchmarks/package.py: four release builds
# one after another, each stripped and compressed, peerscanctl --version timed in each).
bench-package: deps
	$(PYTHON) -m benchmarks.package --runs 50

# The MQTT mirror's benchmark (root; release build): 10,000 devices published to a real mosquitto in a namespace of
# its own, the delay of 1,000 single-device changes, the republication after a broker restart; with mosquitto's
# default receive window (20 messages in flight), then with a wider one.
bench-mqtt: deps
	$(SWIFT) build -c release --static-swift-stdlib --product peerscan-bench
	PEERSCAN_BENCH=.build/release/peerscan-bench $(PYTHON) -m benchmarks.mqtt --devices 10000 --changes 1000 --rate 100
	PEERSCAN_BENCH=.build/release/peerscan-bench $(PYTHON) -m benchmarks.mqtt --devices 10000 --changes 1000 --rate 100 \
		--broker-option 'max_inflight_messages 1000'

# A Bluetooth address flood against quiet air (no network, no radio: the store on a simulated clock, the real
# registry in memory and the real MQTT mirror): 1,000 new addresses a minute for 10 minutes, 25 minutes simulated.
bench-radio-flood: deps
	$(SWIFT) build -c release --product peerscan-bench
	.build/release/peerscan-bench radio-flood

# A Wi-Fi beacon flood against quiet air (no network, no radio: the store on a simulated clock, a scan every 10 s, the
# real registry in a temporary file): 1,000 new SSIDs a minute for 10 minutes, 25 minutes simulated.
bench-beacon-flood: deps
	$(SWIFT) build -c release --product peerscan-bench
	.build/release/peerscan-bench beacon-flood

# The live page at scale (root; release build; benchmarks/web.py): peerscan-web over a fake peerscand with 10,000
# devices, its page in headless Chromium, all in one loopback-only namespace: navigation to the list drawn, a search
# keystroke, changeset to DOM at 20/s for 30 s, the assets' bytes, peerscan-web's RSS idle and with 5 tabs.
bench-web: deps
	$(SWIFT) build -c release --product peerscan-web
	PEERSCAN_WEB=.build/release/peerscan-web $(PYTHON) -m benchmarks.web --devices 10000 --rate 20 --seconds 30 --tabs 5

# GET /metrics at scale (root; release build; benchmarks/metrics.py): peerscan-web over a fake peerscand with 10,000
# devices in one loopback-only namespace, 50 scrapes in each format timed (p50, p95) and the series counted.
bench-metrics: deps
	$(SWIFT) build -c release --product peerscan-web
	PEERSCAN_WEB=.build/release/peerscan-web $(PYTHON) -m benchmarks.metrics --devices 10000 --scrapes 50

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
	$(if $(filter release,$(CONFIGURATION)),$(MAKE) --no-print-directory release-build,$(SWIFT) build -c $(CONFIGURATION))
	scripts/generate-docs $(DOCS)
	install -D -m 0644 Sources/PeerScanModel/io.peerscan.varlink "$(DESTDIR)$(PREFIX)/share/varlink/io.peerscan.varlink"
	install -D -m 0755 "$$($(SWIFT) build -c $(CONFIGURATION) --show-bin-path)/peerscan" "$(DESTDIR)$(PKGLIBDIR)/peerscan"
	install -d "$(DESTDIR)$(BINDIR)"
	for program in $(PROGRAMS); do \
		ln -sf "$$(realpath -m --relative-to=$(BINDIR) $(PKGLIBDIR)/peerscan)" "$(DESTDIR)$(BINDIR)/$$program"; done
	install -d "$(DESTDIR)$(UNITDIR)"
	sed 's|/usr/local/bin/|$(BINDIR)/|' systemd/peerscand.service > "$(DESTDIR)$(UNITDIR)/peerscand.service"
	install -m 0644 systemd/peerscand.socket "$(DESTDIR)$(UNITDIR)/peerscand.socket"
	sed 's|/usr/local/bin/|$(BINDIR)/|' systemd/peerscan-web.service > "$(DESTDIR)$(UNITDIR)/peerscan-web.service"
	install -m 0644 systemd/peerscan-web.socket "$(DESTDIR)$(UNITDIR)/peerscan-web.socket"
	sed 's|/usr/local/bin/|$(BINDIR)/|' systemd/peerscan-alerts.service > "$(DESTDIR)$(UNITDIR)/peerscan-alerts.service"
	install -D -m 0644 systemd/peerscan.sysusers "$(DESTDIR)$(SYSUSERSDIR)/peerscan.conf"
	install -D -m 0644 systemd/peerscand-probe.conf "$(DESTDIR)$(PREFIX)/share/doc/peerscan/peerscand-probe.conf"
	install -D -m 0644 packaging/prometheus/peerscan-rules.yml "$(DESTDIR)$(PREFIX)/share/peerscan/peerscan-rules.yml"
	install -d "$(DESTDIR)$(PREFIX)/share/doc/peerscan"
	sed 's|/usr/local/bin/|$(BINDIR)/|' systemd/peerscand-mqtt.conf > "$(DESTDIR)$(PREFIX)/share/doc/peerscan/peerscand-mqtt.conf"
	sed 's|/usr/local/bin/|$(BINDIR)/|' systemd/peerscand-wifi-scan.conf > "$(DESTDIR)$(PREFIX)/share/doc/peerscan/peerscand-wifi-scan.conf"
	install -m 0644 systemd/peerscan-alerts-egress.conf "$(DESTDIR)$(PREFIX)/share/doc/peerscan/peerscan-alerts-egress.conf"
	install -D -m 0644 $(DOCS)/man1/peerscanctl.1 "$(DESTDIR)$(MANDIR)/man1/peerscanctl.1"
	install -D -m 0644 $(DOCS)/man8/peerscand.8 "$(DESTDIR)$(MANDIR)/man8/peerscand.8"
	install -D -m 0644 $(DOCS)/man8/peerscan-web.8 "$(DESTDIR)$(MANDIR)/man8/peerscan-web.8"
	install -D -m 0644 $(DOCS)/man8/peerscan-alerts.8 "$(DESTDIR)$(MANDIR)/man8/peerscan-alerts.8"
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

# The reliability suite (root; Tests/Stress): a churning mDNS LAN of many virtual hosts with a known ground truth,
# 100 Monitor clients, and faults (avahi-daemon killed and restarted, the D-Bus bus restarted, peerscand restarted, the
# scanner's veth down and up, the state directory's file system full); every client and GetSnapshot must equal the
# truth at the end of each; Debian's stock avahi-daemon.conf. stress: 220 hosts / ~880 services (what the stock cache
# holds on one interface, with room for the churn) for 5 min, 10 avahi kills, and Avahi's own limits probed;
# stress-ci: the bounded part CI runs (~5 min). Both first sweep a /22 of 1,000 silent hosts (test_scanner_sweep.py,
# 7-17 s). STRESS_SEED=N replays a run; evidence in .build/stress/.
.PHONY: stress stress-ci
stress: build
	STRESS_PROFILE=full $(PYTHON) -m pytest -v -s -p no:cacheprovider Tests/Stress

stress-ci: build
	STRESS_PROFILE=ci $(PYTHON) -m pytest -v -s -p no:cacheprovider Tests/Stress/test_scanner_sweep.py \
		Tests/Stress/test_stress.py

# The units under a real systemd (root): boots systemd in a container over a copy-on-write overlay of the host with the
# installed release build, a private test LAN (two namespaces of its own, a veth pair, a python-zeroconf responder),
# and checks sysusers, socket activation, READY/STATUS, the sandbox (Avahi over D-Bus, netlink), the watchdog,
# Restart= after a crash, journald priorities, who may switch scanning, the version, a graceful stop
# (scripts/system-test; make deb-test runs the same checks on a pristine Debian 12 with the package).
.PHONY: system-test
system-test: release-build
	scripts/system-test

# The unit and integration tests under ThreadSanitizer and AddressSanitizer (integration part: root), each build in its
# own folder (.build-tsan, .build-asan). Any report fails the run: halt_on_error stops the process at the first one
# (exit code 66), and every report is also written under $(SANITIZER_LOGS)/{tsan,asan}/ (log_path), which must be
# empty at the end — that catches what peerscand reports only at its exit, which the tests do not check.
# LeakSanitizer stays off (see Tests/Sanitizers/README.md). Suppressions, each with its evidence: Tests/Sanitizers/.
# SANITIZE_TESTS narrows the integration tests (pytest arguments; default: all of Tests/Integration).
SANITIZER_LOGS = $(CURDIR)/.build-sanitize
SANITIZE_TESTS ?= Tests/Integration
SANITIZER_COMMON = halt_on_error=1:exitcode=66
TSAN_SUPPRESSIONS = $(wildcard $(CURDIR)/Tests/Sanitizers/tsan.supp)
SANITIZE_TSAN_OPTIONS = $(SANITIZER_COMMON):second_deadlock_stack=1:log_path=$(SANITIZER_LOGS)/tsan/report$(if $(TSAN_SUPPRESSIONS),:suppressions=$(TSAN_SUPPRESSIONS))
SANITIZE_ASAN_OPTIONS = $(SANITIZER_COMMON):detect_leaks=0:detect_stack_use_after_return=1:strict_string_checks=1:log_path=$(SANITIZER_LOGS)/asan/report
.PHONY: sanitize sanitize-tsan sanitize-asan
sanitize: sanitize-asan sanitize-tsan

sanitize-tsan sanitize-asan: sanitize-%: deps
	rm -rf $(SANITIZER_LOGS)/$* && mkdir -p $(SANITIZER_LOGS)/$* && chmod 1777 $(SANITIZER_LOGS)/$*
	$(SWIFT) build --build-tests --sanitize=$(SANITIZER_$*) --scratch-path .build-$*
	$(SANITIZER_ENV_$*) $(SWIFT) test --skip-build --no-parallel --sanitize=$(SANITIZER_$*) --scratch-path .build-$*; \
		$(call sanitizer_reports,$*)
	$(SANITIZER_ENV_$*) PEERSCAND=$(CURDIR)/.build-$*/debug/peerscand PEERSCAN_SANITIZER=$(SANITIZER_$*) \
		$(PYTHON) -m pytest -v -p no:cacheprovider $(SANITIZE_TESTS); \
		$(call sanitizer_reports,$*)
	@echo "sanitize-$*: no sanitizer report"

SANITIZER_tsan = thread
SANITIZER_asan = address
SANITIZER_ENV_tsan = TSAN_OPTIONS="$(SANITIZE_TSAN_OPTIONS)"
SANITIZER_ENV_asan = ASAN_OPTIONS="$(SANITIZE_ASAN_OPTIONS)"
# Fails (printing them) if the sanitizer wrote any report, else exits with the previous command's status.
sanitizer_reports = status=$$?; if [ -n "$$(ls -A $(SANITIZER_LOGS)/$(1))" ]; then \
	echo "sanitize-$(1): sanitizer reports in $(SANITIZER_LOGS)/$(1):"; cat $(SANITIZER_LOGS)/$(1)/*; exit 1; fi; \
	exit $$status

# The release build of what the package ships (docs/packaging.md, "Size"): `peerscan`, the one executable that is the
# four programs (each a link to it), with the Swift runtime linked statically, only the ICU data it needs
# (scripts/icu-data: the toolchain's data under --wrap, which the linker resolves to the trimmed copy; a changed copy
# removes the executable, for SwiftPM does not track it, so that it is linked again) and no dynamic
# symbol table of its own functions (--no-export-dynamic: nothing loads into it; 2.7 MB).
release-build: deps
	symbol=$$(scripts/icu-data .build/icu-data.o) && \
		{ [ ! .build/icu-data.o -nt .build/release/peerscan ] || rm -f .build/release/peerscan; } && \
		$(SWIFT) build -c release --static-swift-stdlib --product peerscan -Xlinker --no-export-dynamic \
			-Xlinker --wrap=$$symbol -Xlinker $(CURDIR)/.build/icu-data.o
	mkdir -p .build/programs && for program in $(PROGRAMS); do ln -sfn ../release/peerscan .build/programs/$$program; done

release: release-build
	scripts/generate-docs $(DOCS)

# The Debian package peerscan_VERSION_ARCH.deb in this directory (docs/packaging.md): dpkg-buildpackage over debian/
# (dh; its build step is `make release-build`, its install step `make install`), then lintian, which must report no
# error. VERSION is debian/changelog's.
DEB_VERSION = $(shell dpkg-parsechangelog -S Version)
DEB_ARCH = $(shell dpkg --print-architecture)
DEB = peerscan_$(DEB_VERSION)_$(DEB_ARCH).deb
# Not `debian/rules clean` (dh_clean would search the whole tree, .build included): what dh left in debian/ goes
# here, so that every run builds, tests and installs anew (dh skips the steps its build stamp records).
deb: deps
	rm -rf $(DEB) .build-deb/$(DEB) debian/peerscan debian/.debhelper debian/debhelper-build-stamp debian/files \
		debian/*.substvars debian/*.debhelper.log debian/*.debhelper
	dpkg-buildpackage --build=binary --no-sign --no-pre-clean \
		--buildinfo-file=.build-deb/peerscan_$(DEB_VERSION)_$(DEB_ARCH).buildinfo --buildinfo-option=-u.build-deb \
		--changes-file=.build-deb/peerscan_$(DEB_VERSION)_$(DEB_ARCH).changes --changes-option=-u.build-deb
	cp .build-deb/$(DEB) $(DEB)
	lintian --fail-on error --info $(DEB)

# The package on a pristine Debian 12 (root): a debootstrap root of its own (cached in /var/cache/peerscan), the .deb
# installed there with apt-get, the system test's checks under systemd-nspawn, then remove and purge checked
# (scripts/deb-test).
deb-test: deb
	scripts/deb-test $(DEB)

# The radio tests (Tests/Radio, root) in a throw-away qemu guest with simulated Wi-Fi and Bluetooth
# (scripts/radio-guest, docs/radio-testing.md): one boot (~25–45 s under TCG), then pytest on RADIO_TESTS with the host-built peerscand.
# The smoke test alone: make radio-test RADIO_TESTS=Tests/Radio/test_air.py
RADIO_TESTS ?= Tests/Radio
# What `make test` runs in the guest: all of it — the air, Wi-Fi, and Bluetooth LE through bluetoothd (~9 min on an
# idle host, 13 min at a load of 5–10, before issue 35's admission and address-flood tests, which add ~3 min).
RADIO_CI_TESTS = Tests/Radio
RADIO_TIMEOUT ?= 1800
radio-test: build
	$(SWIFT) build --build-tests  # test_bluetooth runs the Swift BluetoothLiveTests inside the guest
	scripts/radio-guest --timeout $(RADIO_TIMEOUT) -- $(PYTHON) -m pytest -v --durations=15 -p no:cacheprovider $(RADIO_TESTS)

# The Wi-Fi demo in the radio guest: peerscanctl watch over a ~1.5-minute scene (testlan/radio/demo.py).
demo-wifi: build
	scripts/radio-guest --timeout 300 -- $(PYTHON) -m testlan.radio.demo

# The Wi-Fi benchmark in the radio guest (benchmarks/wifi.py): delay from a scan to the changeset, CPU per scan with
# 4 and 30 access points.
bench-wifi: build
	scripts/radio-guest --timeout 900 -- $(PYTHON) -m benchmarks.wifi
