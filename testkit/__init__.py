"""What the test LAN (testlan), peerscand's test clients (testclient), the tests and the benchmarks share, so that
neither of the first two imports the other: waiting for a condition (`waiting`), a process's resource use from /proc
(`proc`), Varlink on a socket by hand (`wire`), peerscand under test (`peerscand`: start, log, wait, stop) and a real
Prometheus in a namespace (`prometheus`).

It imports nothing from testlan or testclient, and outside the standard library nothing at all (the radio guest and
the test LAN's peers run on Debian's python3) — except `browser`, headless Chromium for the page's tests, which needs
Selenium and pytest from the virtual environment. Nothing is installed: it imports from the repository's root, which
pytest puts on the path (``pythonpath`` in pyproject.toml) and ``python3 -m …`` run from the root has as its working
directory.
"""
