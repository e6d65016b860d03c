"""The interviewer's voice, by a real `tiercards worker`: it lists the voice lane once flite is
found, says the question a mock interview asks, and the page plays what it said."""

import pytest
from fastapi.testclient import TestClient

from app.demos.models import WorkerBeat
from app.jobs.queue import voice_lanes_for
from app.speech.decode import decode_recording
from tests.factories import OWNER_CARD
from tests.helpers.demos import WorkerProcess, wait_for
from tests.helpers.html import one, soup_of

pytestmark = [pytest.mark.load]


def says_questions(worker: WorkerProcess) -> bool:
    with worker.db.read_sessions() as session:
        beat = session.get(WorkerBeat, worker.name)
        return beat is not None and voice_lanes_for(False)[0] in (beat.capabilities or [])


def test_a_worker_says_the_interview_s_question_and_the_page_plays_it(
    demo_client: TestClient, worker: WorkerProcess
) -> None:
    wait_for(
        lambda: says_questions(worker), timeout=120, what=f"worker saying questions:\n{worker.log_tail()}"
    )
    # Its queue is read once every child it can run has started.
    wait_for(
        lambda: "lane(s) of the" in worker.log_text(), timeout=120, what=f"worker ready:\n{worker.log_tail()}"
    )
    started = demo_client.post("/api/interviews", json={"cards": [OWNER_CARD], "tier": "middle"})
    assert started.status_code == 201, started.text
    question = started.json()["question"]
    assert question["audio_url"] and question["audio_url"].startswith("/api/voice/")
    heard = demo_client.get(question["audio_url"])
    assert heard.status_code == 200, f"{heard.text}\n{worker.log_tail()}"
    sound = decode_recording(heard.content, max_seconds=60)
    assert 1.5 < sound.seconds < 15
    page = soup_of(demo_client.get(f"/interview/{started.json()['id']}"))
    assert one(page, "#interview-step audio[data-question-audio]")["src"] == question["audio_url"]
    # Said once: the same question asked again is the same sound, not a second job.
    again = demo_client.post("/api/interviews", json={"cards": [OWNER_CARD], "tier": "middle"})
    assert again.json()["question"]["audio_url"] == question["audio_url"]
