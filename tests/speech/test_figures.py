"""/metrics counts recordings by status (all four always) and reports the real-time factor of the
last transcribed ones, read at scrape time from the database."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import update

from app.factory import create_app
from app.jobs.dependencies import app_job_queue
from app.jobs.queue import speech_lane
from app.speech.figures import RTF_WINDOW
from app.speech.models import Recording
from app.storage.base import utcnow
from tests.helpers.demos import demo_settings_for
from tests.helpers.metrics import scrape as complete_scrape
from tests.helpers.recordings import store_recording


def scrape(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = complete_scrape(client)
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def test_recordings_by_status_and_the_real_time_factor_are_scraped(tmp_path: Path) -> None:
    settings = demo_settings_for(tmp_path)
    app = create_app(settings)
    with TestClient(app, client=("127.0.0.1", 50000)) as client:
        empty = scrape(client)
        for status in ("queued", "running", "done", "failed"):
            assert empty[("tiercards_recordings", (("status", status),))] == 0
        assert empty[("tiercards_recording_real_time_factor_count", ())] == 0

        db = app.state.db
        ids = [store_recording(db, audio=b"x") for _ in range(RTF_WINDOW + 4)]
        factors = {recording_id: 0.01 * (index + 1) for index, recording_id in enumerate(ids)}
        with db.write_sessions() as session:
            for recording_id in ids[:-1]:
                session.execute(
                    update(Recording)
                    .where(Recording.id == recording_id)
                    .values(status="done", real_time_factor=factors[recording_id], finished_at=utcnow())
                )
            session.execute(update(Recording).where(Recording.id == ids[0]).values(status="failed"))
            session.commit()
        figures = scrape(client)
    assert figures[("tiercards_recordings", (("status", "queued"),))] == 1
    assert figures[("tiercards_recordings", (("status", "failed"),))] == 1
    assert figures[("tiercards_recordings", (("status", "done"),))] == RTF_WINDOW + 2
    assert figures[("tiercards_recording_real_time_factor_count", ())] == RTF_WINDOW
    # The last hundred done: factors 0.04 … 1.03 (finished in that order), so a median of 0.535.
    median = figures[("tiercards_recording_real_time_factor", (("quantile", "0.5"),))]
    ninetieth = figures[("tiercards_recording_real_time_factor", (("quantile", "0.9"),))]
    assert 0.4 < median < ninetieth <= max(factors.values())
    assert median == pytest.approx(0.535, abs=0.02)


def test_recordings_waiting_on_the_speech_lanes_are_counted_apart_from_demo_runs(tmp_path: Path) -> None:
    settings = demo_settings_for(tmp_path)
    app = create_app(settings)
    with TestClient(app, client=("127.0.0.1", 50000)) as client:
        assert scrape(client)[("tiercards_recording_queue_depth", ())] == 0
        queue = app_job_queue(app.state)
        for lane in (speech_lane(False), speech_lane(False), speech_lane(True)):
            queue.enqueue(store_recording(app.state.db, audio=b"x", lane=lane), lane=lane)
        figures = scrape(client)
    assert figures[("tiercards_recording_queue_depth", ())] == 3
    assert figures[("tiercards_demo_queue_depth", ())] == 0
