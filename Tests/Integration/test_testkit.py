"""The harness's own parts (testkit): the peerscand wrapper on stand-in processes (sh), the /proc reader on this
process, the raw wire's readiness check on a socket of the test's own. Nothing here starts peerscand or touches a
network; each test takes well under a second."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
from pathlib import Path

import pytest

from testkit import proc
from testkit.peerscand import PEERSCAND, Peerscand, command
from testkit.waiting import WaitError, wait_until
from testkit.wire import answers


def stand_in(script: str, tmp_path: Path, **options) -> Peerscand:
    """A wrapper around `sh -c script` instead of peerscand; its socket is one nothing serves."""
    return Peerscand(["sh", "-c", script], tmp_path / "io.peerscan", **options)


def test_command_is_peerscand_with_the_options_and_as_another_user_without_capabilities() -> None:
    assert command("--dump", "--socket", "/s") == [str(PEERSCAND), "--dump", "--socket", "/s"]
    assert command("--dump", binary="/bin/x", user=65534) == [
        "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
        "/bin/x", "--dump"]


def test_standard_error_is_kept_and_copied_to_the_log_across_a_restart(tmp_path: Path) -> None:
    log = tmp_path / "peerscand.log"
    log.write_text("an earlier run's\n")
    daemon = stand_in("echo one >&2; echo two >&2", tmp_path, log=log)
    assert log.read_text() == "", "the log is emptied when the wrapper is made"
    for _ in range(2):
        daemon.start().wait(timeout=10)  # done before the stop: no SIGTERM
        assert daemon.stop() == 0
    assert daemon.stderr_lines == ["one", "two", "one", "two"]
    assert log.read_text() == "one\ntwo\none\ntwo\n"
    assert daemon.count("one") == 2 and daemon.log_tail(1) == "two"


def test_a_subclass_with_its_own_reader_still_has_its_standard_error_read(tmp_path: Path) -> None:
    """benchmarks.scanner.Daemon reads --dump in a method `_read`: the wrapper's own reader must not be replaced by it
    (it was, and a peerscand with a full stderr pipe did not stop)."""

    class Follower(Peerscand):
        def _read(self) -> None:
            raise AssertionError("not the wrapper's")

    daemon = Follower(["sh", "-c", "echo line >&2"], tmp_path / "io.peerscan")
    daemon.start().wait(timeout=10)
    daemon.stop()
    assert daemon.stderr_lines == ["line"]


def test_standard_output_goes_where_the_caller_says(tmp_path: Path) -> None:
    daemon = stand_in("echo '{}'", tmp_path, stdout=subprocess.PIPE)
    assert daemon.start().stdout.read() == "{}\n"
    daemon.stop()


def test_waiting_for_the_socket_ends_when_peerscand_exits_with_its_last_lines(tmp_path: Path) -> None:
    daemon = stand_in("echo 'bad option' >&2; exit 3", tmp_path)
    daemon.start()
    with pytest.raises(WaitError, match=r"peerscand exited \(3\).*bad option"):
        daemon.wait_serving(timeout=30)


def test_stop_kills_a_process_that_ignores_sigterm_and_says_so(tmp_path: Path) -> None:
    daemon = stand_in("trap '' TERM; echo ready >&2; while :; do sleep 0.05; done", tmp_path)
    process = daemon.start()
    wait_until(lambda: daemon.stderr_lines, 10, "the stand-in's trap")
    with pytest.raises(AssertionError, match="did not stop within 0.5 s of SIGTERM"):
        daemon.stop(timeout=0.5)
    assert process.poll() is not None


def test_usage_reads_a_live_process_and_fails_for_a_gone_one(tmp_path: Path) -> None:
    daemon = stand_in("exec sleep 30", tmp_path)
    process = daemon.start()
    try:
        used = daemon.usage()
        assert used.cpu_seconds >= 0 and 0 < used.rss_kib <= used.peak_rss_kib
        assert used.rss_mib == used.rss_kib / 1024
    finally:
        daemon.stop()
    with pytest.raises(OSError):
        proc.usage(process.pid)
    assert proc.usage(os.getpid()).rss_kib > 0


def test_answers_only_when_a_varlink_server_answers_get_info(tmp_path: Path) -> None:
    path = tmp_path / "io.peerscan"
    assert not answers(path), "no socket"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen()

    def serve() -> None:
        connection, _ = server.accept()
        with connection:
            request = json.loads(connection.recv(4096).rstrip(b"\0"))
            assert request["method"] == "org.varlink.service.GetInfo"
            connection.sendall(json.dumps({"parameters": {"interfaces": ["io.peerscan"]}}).encode() + b"\0")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        assert answers(path)
    finally:
        thread.join(timeout=5)
        server.close()
