"""In production the worker writes what the web writes: one JSON object a line, for one log
collector; in development, readable lines."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app import PROJECT_ROOT
from tests.helpers.demos import demo_settings_for, env_for

pytestmark = pytest.mark.load


def test_a_production_worker_logs_json_lines(tmp_path: Path) -> None:
    settings = demo_settings_for(tmp_path / "data")
    env = {**env_for(settings), "ENVIRONMENT": "production", "ALLOWED_HOSTS": "cards.example.org"}
    log = tmp_path / "worker.log"
    with log.open("wb") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "worker"], cwd=PROJECT_ROOT, env=env, stdout=out, stderr=out
        )
    try:
        deadline = time.monotonic() + 120
        while " ready in " not in log.read_text():
            assert worker.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    ready = next(line for line in lines if " ready in " in line["message"])
    assert ready["level"] == "info" and ready["logger"] == "tiercards.worker"
    assert any("stopped" in line["message"] for line in lines)
