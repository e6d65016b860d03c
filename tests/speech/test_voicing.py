"""A question said aloud, as the web asks for it and serves it: asked once per voice and words,
queued only while a worker says questions, served once said, waited for a few seconds, refused
with a clear status otherwise; and put back on its lane when the worker that took it died."""

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.demos.models import WorkerBeat
from app.exceptions import Unavailable
from app.jobs.dependencies import app_job_queue
from app.jobs.queue import voice_lanes_for
from app.speech import voicing
from app.speech.models import QuestionVoice
from app.speech.voice import said
from app.speech.voicing import Asker
from tests.factories import DECK, OWNER_CARD
from tests.helpers.practice import write_session

TITLE = DECK[OWNER_CARD].title.markdown


def asker(app: FastAPI, voice: str = "slt") -> Asker:
    return Asker(app_job_queue(app.state), 60.0, voice)


@pytest.fixture
def voice_worker(app: FastAPI) -> Iterator[None]:
    """A live worker that lists the voice lane (flite found)."""
    with write_session(app) as session:
        session.add(
            WorkerBeat(
                name="voice:1", device="CPU", compute="real", capabilities=list(voice_lanes_for(False))
            )
        )
    yield
    with write_session(app) as session:
        session.query(WorkerBeat).delete()


def test_a_question_is_asked_once_per_voice_and_words_and_queued_for_a_worker(
    app: FastAPI, voice_worker: None
) -> None:
    queue = app_job_queue(app.state)
    with write_session(app) as session:
        first = voicing.ask(session, text=TITLE, asker=asker(app))
        again = voicing.ask(session, text=TITLE, asker=asker(app))
        other = voicing.ask(session, text=TITLE, asker=asker(app, "rms"))
    assert first == again == voicing.key("slt", said(TITLE)) and other != first
    assert queue.run_ids("voice") >= {first, other}
    with app.state.db.read_sessions() as session:
        row = session.get(QuestionVoice, first)
        assert row is not None and (row.status, row.text, row.voice) == ("queued", said(TITLE), "slt")


def test_no_question_is_asked_without_a_worker_that_says_them_or_with_voices_off(
    app: FastAPI, voice_worker: None
) -> None:
    with write_session(app) as session:
        assert voicing.ask(session, text=TITLE, asker=asker(app, "none")) is None
        session.query(WorkerBeat).delete()
        session.commit()
        assert voicing.ask(session, text=TITLE, asker=asker(app)) is None
    with app.state.db.read_sessions() as session:
        assert session.query(QuestionVoice).count() == 0


def store(app: FastAPI, wanted: str, **fields: object) -> None:
    with write_session(app) as session:
        row = session.get(QuestionVoice, wanted)
        assert row is not None
        for name, value in fields.items():
            setattr(row, name, value)
        session.commit()


def test_a_said_question_is_served_as_wav_cached_and_a_failed_or_unknown_one_is_404(
    app: FastAPI, client: TestClient, voice_worker: None
) -> None:
    with write_session(app) as session:
        wanted = voicing.ask(session, text=TITLE, asker=asker(app))
    assert wanted is not None
    store(app, wanted, status="done", audio=b"RIFF....WAVEfmt ")
    heard = client.get(f"/api/voice/{wanted}")
    assert heard.status_code == 200 and heard.content == b"RIFF....WAVEfmt "
    assert heard.headers["content-type"] == "audio/wav"
    store(app, wanted, status="failed", audio=None, error="flite stopped")
    failed = client.get(f"/api/voice/{wanted}")
    assert failed.status_code == 404 and "flite stopped" in failed.json()["detail"]
    # Failed once: the page shows the question's text alone, and asks no more.
    with write_session(app) as session:
        assert voicing.ask(session, text=TITLE, asker=asker(app)) is None
    assert client.get(f"/api/voice/{'0' * 64}").status_code == 404
    assert client.get("/api/voice/not-a-key").status_code == 422


def test_a_question_no_worker_says_in_time_is_503_and_nothing_is_held_meanwhile(
    app: FastAPI, voice_worker: None
) -> None:
    with write_session(app) as session:
        wanted = voicing.ask(session, text=TITLE, asker=asker(app))
    assert wanted is not None
    with pytest.raises(Unavailable):
        voicing.sound(app.state.db, wanted=wanted, wait_s=0.2)


def test_a_question_a_dead_worker_took_goes_back_on_the_voice_lane(app: FastAPI, voice_worker: None) -> None:
    queue = app_job_queue(app.state)
    with write_session(app) as session:
        wanted = voicing.ask(session, text=TITLE, asker=asker(app))
    queue.hueys[voice_lanes_for(False)[0]].flush()  # as a worker's take, then its death, leaves it
    assert wanted not in queue.run_ids("voice")
    with app.state.db.read_sessions() as session:
        assert voicing.requeue_left_behind(session, queue=queue) == 1
    assert wanted in queue.run_ids("voice")
