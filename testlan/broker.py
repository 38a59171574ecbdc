"""A mosquitto broker in one of the test LAN's namespaces, for the MQTT and Home Assistant tests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from testkit.waiting import wait_until


class Broker:
    """A mosquitto in namespace `ns`, listening on `host`:`port`; `persistence` keeps retained messages across
    restarts (written at shutdown)."""

    def __init__(self, ns: str, host: str, directory: Path, port: int = 1883, persistence: bool = False) -> None:
        self.ns, self.host, self.port = ns, host, port
        self.config = directory / "mosquitto.conf"
        self.log = directory / "mosquitto.log"
        directory.mkdir(parents=True, exist_ok=True)
        os.chmod(directory, 0o777)  # mosquitto drops to its own user
        self.config.write_text(f"user root\nlistener {port} {host}\nallow_anonymous true\n"
                               f"persistence {'true' if persistence else 'false'}\n"
                               f"persistence_location {directory}/\nlog_dest file {self.log}\n")
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(["ip", "netns", "exec", self.ns, "mosquitto", "-c", str(self.config)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: subprocess.run(["ip", "netns", "exec", self.ns, "mosquitto_pub", "-h", self.host, "-p",
                                           str(self.port), "-t", "ready", "-n"], capture_output=True).returncode == 0,
                   10, "mosquitto to accept a publication", interval=0.05,
                   give_up=lambda: None if self.process.poll() is None else "mosquitto exited",
                   details=lambda: self.log.read_text() if self.log.exists() else "no log")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    def retained(self, filter: str = "#") -> dict[str, str]:
        """Every retained message under `filter` now, by topic (what a new subscriber is given)."""
        result = subprocess.run(["ip", "netns", "exec", self.ns, "mosquitto_sub", "-h", self.host, "-p",
                                 str(self.port), "-t", filter, "-F", "%j", "--retained-only", "-W", "1"],
                                capture_output=True, text=True, timeout=15)
        messages = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
        return {message["topic"]: message["payload"] for message in messages}
