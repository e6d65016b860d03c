"""How many coverage checks the API runs, for whom and how often, in each web process.

Scoring an answer is pure Python that holds the GIL while it runs: tens to hundreds of
milliseconds for a long one. Side by side on the web's threads, such checks took every other
request of the process down with them (eight 20,000-character checks at once took another person's
card read from 7 ms to about a second). So a process runs CHECKS_AT_ONCE check at a time, for
everyone, and a check waits for that turn on the event loop, holding no thread; each person has one
check under way at a time, and COVERAGE_CHECKS_PER_MINUTE in any minute.

Counted in memory, per process: a check stores nothing, and writing a row to count it would cost
more than checking a short answer does. Each replica counts its own."""

import math
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TypeVar

import anyio

from app.exceptions import TooMany

# One: under the GIL a second check at once adds no throughput, only one more thread that page
# reads wait behind.
CHECKS_AT_ONCE = 1
# How long a check waits for the process's turn before it is refused. The longest answer takes a
# few hundred milliseconds, so this lets a few people's checks go first; waiting holds no thread.
TURN_WAIT_S = 2.0
BUSY_RETRY_AFTER_S = 1
WINDOW_S = 60.0
# People remembered past this many: those with no check in the window are forgotten.
REMEMBERED = 1024

Result = TypeVar("Result")


class Pacing:
    """One web process's checks: the turn they take one at a time, and each person's count."""

    def __init__(
        self,
        *,
        per_minute: int,
        at_once: int = CHECKS_AT_ONCE,
        wait_s: float = TURN_WAIT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_minute = per_minute
        self._wait_s, self._clock = wait_s, clock
        self._turns = anyio.Semaphore(at_once)
        self._lock = threading.Lock()
        self._made: dict[int, deque[float]] = {}
        self._checking: set[int] = set()

    async def run(self, person: int, work: Callable[[], Result]) -> Result:
        """`work` (one check for `person`) run on a worker thread once this process's turn comes.
        TooMany, counting nothing, when they have a check under way, made `per_minute` in the last
        minute, or the turn does not come within the wait."""
        made_at = self._admit(person)
        try:
            turn = False
            with anyio.move_on_after(self._wait_s):
                await self._turns.acquire()
                turn = True
            if not turn:
                self._uncount(person, made_at)
                raise TooMany(
                    "the server is checking other answers right now, one at a time: "
                    f"try again in {BUSY_RETRY_AFTER_S} s",
                    retry_after=BUSY_RETRY_AFTER_S,
                )
            try:
                return await anyio.to_thread.run_sync(work)
            finally:
                self._turns.release()
        finally:
            with self._lock:
                self._checking.discard(person)

    def _admit(self, person: int) -> float:
        """Count a check for `person` and mark them checking; TooMany when they may not."""
        now = self._clock()
        with self._lock:
            if person in self._checking:
                raise TooMany(
                    "you have a coverage check under way: send the next once it has answered",
                    retry_after=BUSY_RETRY_AFTER_S,
                )
            made = self._made.setdefault(person, deque())
            while made and made[0] <= now - WINDOW_S:
                made.popleft()
            if len(made) >= self.per_minute:
                # Room for one more comes when the oldest check of the window leaves it.
                wait = max(1, math.ceil(made[0] + WINDOW_S - now))
                raise TooMany(
                    f"you made {len(made)} coverage checks in the last minute (at most "
                    f"{self.per_minute} a minute): try again in {wait} s",
                    retry_after=wait,
                )
            made.append(now)
            self._checking.add(person)
            if len(self._made) > REMEMBERED:
                self._forget_idle(now)
        return now

    def _uncount(self, person: int, made_at: float) -> None:
        with self._lock:
            made = self._made.get(person)
            if made and made_at in made:
                made.remove(made_at)

    def _forget_idle(self, now: float) -> None:
        idle = [
            person
            for person, made in self._made.items()
            if person not in self._checking and (not made or made[-1] <= now - WINDOW_S)
        ]
        for person in idle:
            del self._made[person]
