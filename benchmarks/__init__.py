"""peerscan's benchmarks on the test LAN. Run each as a module from the repository's root (root needed), e.g.
``/usr/bin/python3 -m benchmarks.scanner sweep``, so that ``testlan`` and ``testclient`` import from the work tree."""
