"""argon2 takes 64 MiB a run: the process runs at most passwords.MAX_AT_ONCE of them at once,
however many sign-ins arrive together."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from app.accounts import passwords

pytestmark = pytest.mark.engine_agnostic


class Counting:
    """argon2's hasher, counting how many of its runs overlap."""

    def __init__(self, real: Any) -> None:
        self.real, self.running, self.most = real, 0, 0
        self.lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def _run(self, work: Any, *args: str) -> Any:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(0.05)
        try:
            return work(*args)
        finally:
            with self.lock:
                self.running -= 1

    def verify(self, stored: str, password: str) -> bool:
        return bool(self._run(self.real.verify, stored, password))

    def hash(self, password: str) -> str:
        return str(self._run(self.real.hash, password))


def test_at_most_two_argon2_runs_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = Counting(passwords._hasher)
    monkeypatch.setattr(passwords, "_hasher", counting)
    stored = passwords.DUMMY_HASH
    with ThreadPoolExecutor(8) as pool:
        verified = [pool.submit(passwords.verify, stored, "wrong") for _ in range(6)]
        hashed = [pool.submit(passwords.hash_password, "a long enough phrase") for _ in range(6)]
        assert [f.result() for f in verified] == [False] * 6
        assert all(passwords.verify(f.result(), "a long enough phrase") for f in hashed)
    assert counting.most == passwords.MAX_AT_ONCE == 2
