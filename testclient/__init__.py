"""peerscand's clients in the tests and benchmarks: an independent replayer of changesets (`applier`, written from the
protocol's description only) and the Varlink clients built on it (`varlinkclient`: a Monitor follower, a GetSnapshot
sampler, a client run as another user). It imports testkit (waits, the raw wire), never testlan.

Import as ``from testclient import applier, varlinkclient`` with the repository's root on the path: pytest puts it there
(``pythonpath`` in pyproject.toml), ``python3 -m benchmarks.…`` run from the root has it as its working directory.
"""
