"""How the coverage API paces checks in a web process: a person's checks a minute, one of theirs
under way at a time, and one check at a time for everyone, waited for a bounded time."""

import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import anyio
import pytest

from app.coverage.pacing import BUSY_RETRY_AFTER_S, WINDOW_S, Pacing
from app.exceptions import TooMany

pytestmark = pytest.mark.engine_agnostic

ALICE, BOB = 1, 2
Result = TypeVar("Result")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def run(func: Callable[..., Awaitable[Result]], *args: object) -> Result:
    """`anyio.run` on a thread of its own, so no event loop left in this thread by what ran here
    before can stand in its way."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, func, *args).result()


def done() -> str:
    return "checked"


def refusal(call: Callable[[], Awaitable[object]]) -> TooMany:
    async def attempt() -> TooMany:
        with pytest.raises(TooMany) as refused:
            await call()
        return refused.value

    return run(attempt)


class Held:
    """A check that runs until the test lets it finish, and says when it has started."""

    def __init__(self) -> None:
        self.started, self.release = threading.Event(), threading.Event()

    def __call__(self) -> str:
        self.started.set()
        assert self.release.wait(10), "the test never let the check finish"
        return "held"


def test_a_person_gets_their_checks_a_minute_then_a_sentence_naming_the_limit() -> None:
    clock = Clock()
    pacing = Pacing(per_minute=3, clock=clock)
    for _ in range(3):
        assert run(pacing.run, ALICE, done) == "checked"
        clock.now += 1
    refused = refusal(lambda: pacing.run(ALICE, done))
    assert (
        refused.message
        == "you made 3 coverage checks in the last minute (at most 3 a minute): try again in 57 s"
    )
    # Room comes when the first check of the window leaves it, not a whole minute after the last.
    assert refused.retry_after == 57
    assert run(pacing.run, BOB, done) == "checked"


def test_a_refused_check_is_not_counted_and_the_window_slides() -> None:
    clock = Clock()
    pacing = Pacing(per_minute=2, clock=clock)
    run(pacing.run, ALICE, done)
    clock.now += 30
    run(pacing.run, ALICE, done)
    for _ in range(5):
        refusal(lambda: pacing.run(ALICE, done))
    clock.now += WINDOW_S - 30
    assert run(pacing.run, ALICE, done) == "checked"
    assert refusal(lambda: pacing.run(ALICE, done)).retry_after == 30


def test_a_person_has_one_check_under_way_at_a_time() -> None:
    pacing = Pacing(per_minute=10)
    held = Held()

    async def scenario() -> tuple[TooMany, list[str]]:
        answers: list[str] = []
        async with anyio.create_task_group() as tasks:

            async def first() -> None:
                answers.append(await pacing.run(ALICE, held))

            tasks.start_soon(first)
            await anyio.to_thread.run_sync(held.started.wait)
            with pytest.raises(TooMany) as refused:
                await pacing.run(ALICE, done)
            held.release.set()
        answers.append(await pacing.run(ALICE, done))  # answered: the next one goes
        return refused.value, answers

    refused, answers = run(scenario)
    assert refused.message == "you have a coverage check under way: send the next once it has answered"
    assert refused.retry_after == BUSY_RETRY_AFTER_S
    assert answers == ["held", "checked"]


def test_everyones_checks_run_one_at_a_time_in_the_order_they_came() -> None:
    pacing = Pacing(per_minute=10, wait_s=10)
    running, most, order = 0, 0, []
    lock = threading.Lock()

    def check(person: int) -> Callable[[], int]:
        def work() -> int:
            nonlocal running, most
            with lock:
                running += 1
                most = max(most, running)
            order.append(person)
            time.sleep(0.02)
            with lock:
                running -= 1
            return person

        return work

    async def scenario() -> None:
        async with anyio.create_task_group() as tasks:
            for person in range(1, 7):
                tasks.start_soon(pacing.run, person, check(person))
                await anyio.sleep(0.005)

    run(scenario)
    assert most == 1
    assert order == [1, 2, 3, 4, 5, 6]


def test_a_check_that_waits_too_long_for_its_turn_is_refused_uncounted() -> None:
    pacing = Pacing(per_minute=1, wait_s=0.2)
    held = Held()

    async def scenario() -> TooMany:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(pacing.run, ALICE, held)
            await anyio.to_thread.run_sync(held.started.wait)
            with pytest.raises(TooMany) as refused:
                await pacing.run(BOB, done)
            held.release.set()
        return refused.value

    refused = run(scenario)
    assert (
        refused.message == "the server is checking other answers right now, one at a time: try again in 1 s"
    )
    assert refused.retry_after == BUSY_RETRY_AFTER_S
    # Bob's minute was not spent on the check that never ran.
    assert run(pacing.run, BOB, done) == "checked"


def test_a_failing_check_frees_the_turn_and_the_person() -> None:
    pacing = Pacing(per_minute=10, wait_s=0.2)

    def broken() -> str:
        raise ValueError("broken")

    with pytest.raises(ValueError, match="broken"):
        run(pacing.run, ALICE, broken)
    assert run(pacing.run, ALICE, done) == "checked"
    assert run(pacing.run, BOB, done) == "checked"
