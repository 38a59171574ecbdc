"""Waiting for a condition: the one set of deadline loops the test LAN, the test clients, the tests and the
benchmarks use.

Two kinds of waits, one failure:

- `wait_until` / `wait_for_value` poll a predicate every ``interval`` seconds, for state nobody announces (a file
  appearing, a line in a log, a neighbour table entry).
- `wait_notified` sleeps on a `threading.Condition` that whoever changes the state notifies (a reader thread that
  replays a stream), so it wakes at the change, not at the next poll.

Each takes ``what`` (named in the failure), an optional ``give_up`` that ends the wait early with its reason (a
process that exited: waiting on would only time out), and an optional ``details`` whose text is appended to the
failure (the last log lines, the state seen). A wait that fails raises `WaitError`, an `AssertionError` (a failed test,
as the ``assert`` loops it replaces) and a `TimeoutError` (to a harness).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

__all__ = ["WaitError", "wait_for_value", "wait_notified", "wait_until"]


class WaitError(AssertionError, TimeoutError):
    """A condition did not come true within its timeout, or ``give_up`` ended the wait first."""


def _fail(why: str, what: str, details: Callable[[], str] | None) -> WaitError:
    message = f"{why} waiting for {what}"
    if details is not None:
        message += f"; {details()}"
    return WaitError(message)


def wait_for_value(probe: Callable[[], T | None], timeout: float, what: str = "condition", *, interval: float = 0.1,
                   give_up: Callable[[], str | None] | None = None, details: Callable[[], str] | None = None) -> T:
    """Calls ``probe`` every ``interval`` seconds until it returns a truthy value, and returns that value.

    - Parameters:
      - give_up: called before each probe; a non-empty string ends the wait at once, as the failure's reason.
      - details: called only on failure; its text is appended to the message.
    - Raises: `WaitError` after ``timeout`` seconds, or when ``give_up`` answers.
    """
    deadline = time.monotonic() + timeout
    while True:
        reason = give_up() if give_up is not None else None
        if reason:
            raise _fail(reason, what, details)
        value = probe()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise _fail(f"timed out after {timeout:g} s", what, details)
        time.sleep(interval)


def wait_until(predicate: Callable[[], object], timeout: float, what: str = "condition", *, interval: float = 0.1,
               give_up: Callable[[], str | None] | None = None, details: Callable[[], str] | None = None) -> float:
    """Polls ``predicate`` every ``interval`` seconds until it holds (see `wait_for_value` for the parameters).

    - Returns: the seconds it took.
    - Raises: `WaitError` after ``timeout`` seconds, or when ``give_up`` answers.
    """
    started = time.monotonic()
    wait_for_value(lambda: bool(predicate()), timeout, interval=interval, what=what, give_up=give_up, details=details)
    return time.monotonic() - started


def wait_notified(condition: threading.Condition, predicate: Callable[[], object], timeout: float,
                  what: str = "condition", *, give_up: Callable[[], str | None] | None = None,
                  details: Callable[[], str] | None = None) -> float:
    """Waits on ``condition`` until ``predicate`` holds; whoever changes what it reads must notify the condition.

    Call it with the condition's lock held (as `threading.Condition.wait` requires): the state the predicate saw is
    still there when it returns, to be read under the same lock. ``give_up`` is checked at every wake-up, so its
    answer must also come with a notification (a reader thread that notifies at the end of its stream).

    - Returns: the seconds it took.
    - Raises: `WaitError` after ``timeout`` seconds, or when ``give_up`` answers.
    """
    started = time.monotonic()
    deadline = started + timeout
    while not predicate():
        reason = give_up() if give_up is not None else None
        if reason:
            raise _fail(reason, what, details)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _fail(f"timed out after {timeout:g} s", what, details)
        condition.wait(remaining)
    return time.monotonic() - started
