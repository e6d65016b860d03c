"""The time a worker gives a transcription comes from this server's longest recording, not from the
length a client declared (an API upload may declare none), and an answer whose card is gone is
measured against the same target the CLI uses without a card."""

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app.jobs.child_process import ChildTimedOut
from app.jobs.queue import speech_lane
from app.settings import Settings
from app.speech.child import Job, time_limit_seconds
from app.speech.delivery import TARGET_WITHOUT_CARD_SECONDS
from app.speech.models import Recording
from app.storage.database import Database
from tests.helpers.recordings import recording, store_recording, transcription_executor


class TimingOut:
    """A speech process that runs past every limit, noting the limit and job it was given."""

    def __init__(self) -> None:
        self.calls: list[tuple[Job, float]] = []

    def run(self, job: Job, *, timeout_s: float, should_cancel: Callable[[], bool]) -> dict[str, Any]:
        self.calls.append((job, timeout_s))
        raise ChildTimedOut("past its time limit")


@pytest.fixture
def db(settings: Settings) -> Iterator[Database]:
    database = Database(settings)
    yield database
    with database.write_sessions() as session:
        session.query(Recording).delete()
        session.commit()
    database.dispose()


@pytest.mark.parametrize("declared", [0.0, 5.0], ids=["none-declared", "five-declared"])
def test_the_time_limit_is_the_longest_recording_s_whatever_was_declared(
    settings: Settings, db: Database, declared: float
) -> None:
    runner = TimingOut()
    recording_id = store_recording(db, audio=b"sound", declared_seconds=declared)
    transcription_executor(settings, db, runner=runner).execute(recording_id, speech_lane(False))
    limit = time_limit_seconds(settings.max_recording_seconds)
    assert [timeout for _, timeout in runner.calls] == [limit]
    ended = recording(db, recording_id)
    assert ended.status == "failed" and f"time limit of {limit:.0f} s" in (ended.error or "")


def test_an_answer_whose_card_is_gone_has_the_target_of_an_answer_without_a_card(
    settings: Settings, db: Database
) -> None:
    runner = TimingOut()
    recording_id = store_recording(db, audio=b"sound")
    with db.write_sessions() as session:
        found = session.get(Recording, recording_id)
        assert found is not None
        found.card_id = "a-card-no-longer-in-the-deck"
        session.commit()
    transcription_executor(settings, db, runner=runner).execute(recording_id, speech_lane(False))
    [(job, _)] = runner.calls
    assert job["target_seconds"] == TARGET_WITHOUT_CARD_SECONDS
