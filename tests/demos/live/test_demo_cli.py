"""`tiercards demo run`: one demo here and now, no queue; bounds exit 2 with the message.
`tiercards demo workers`: the live workers and their capabilities; `--here` as a health check."""

import json
import socket
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import update

from app import PROJECT_ROOT
from app.demos import claims
from app.demos.models import WorkerBeat
from app.settings import Settings
from app.storage.base import utcnow
from app.storage.database import Database
from tests.helpers.demos import demo_settings_for, tiercards

pytestmark = pytest.mark.load

TIMEOUT_S = 120


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "demo", "run", *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_out_of_bounds_exits_2_naming_the_parameter_and_range() -> None:
    result = run_cli("placement", "--input-ms", "9999")
    assert result.returncode == 2
    assert "input_ms must be between 0 and 500" in result.stderr
    wrong = run_cli("placement", "--workers", "3")
    assert wrong.returncode == 2 and "no parameter workers" in wrong.stderr
    unknown = run_cli("warp-drive")
    assert unknown.returncode == 2 and "unknown preset" in unknown.stderr


def test_json_prints_the_result_document_and_the_table_reads_plainly() -> None:
    small = ["--steps", "6", "--input-ms", "3", "--compute-ms", "3", "--batch-size", "2"]
    result = run_cli("placement", *small, "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["preset"] == "placement" and doc["status"] == "done"
    assert doc["params"] == {"input_ms": 3, "compute_ms": 3, "batch_size": 2, "steps": 6}
    assert doc["variants"][0]["name"] == "no-prefetch"
    assert all(v["model_step_ms"] and len(v["steps"]) == 6 for v in doc["variants"])
    assert doc["environment"]["tensorflow_version"]

    table = run_cli("synthetic", *small)
    assert table.returncode == 0, table.stderr
    assert "Real pipeline" in table.stdout and "Synthetic input" in table.stdout
    assert "measured" in table.stdout and "model" in table.stdout


def _beat(settings: Settings, name: str, capabilities: list[str], gpu_setting: str) -> None:
    db = Database(settings)
    with db.write_sessions() as session:
        claims.beat(
            session,
            name=name,
            device="CPU",
            compute="simulated",
            tensorflow_version="2.21.0",
            current_run_id=None,
            started_at=utcnow(),
            capabilities=capabilities,
            gpu_setting=gpu_setting,
        )
    db.dispose()


def test_demo_workers_lists_capabilities_and_here_is_a_health_check(tmp_path: Path) -> None:
    # Long enough that a beat written here is still fresh when the last command reads it.
    settings = demo_settings_for(tmp_path).model_copy(update={"demo_heartbeat_timeout_seconds": TIMEOUT_S})
    host = socket.gethostname()
    none = tiercards(settings, "demo", "workers", "--here")
    assert none.returncode == 1
    assert f"no demo worker on {host} has beaten in the last {TIMEOUT_S} s" in none.stderr

    _beat(settings, "elsewhere:7", ["gpu", "cpu"], "on")
    listed = tiercards(settings, "demo", "workers", "--json")
    assert listed.returncode == 0, listed.stderr
    [worker] = json.loads(listed.stdout)["workers"]
    assert worker["name"] == "elsewhere:7" and worker["capabilities"] == ["gpu", "cpu"]
    assert worker["gpu_setting"] == "on" and worker["tensorflow_version"] == "2.21.0" and worker["last_seen"]
    table = tiercards(settings, "demo", "workers").stdout.splitlines()
    assert table[0].split()[:2] == ["worker", "capabilities"]
    assert table[1].startswith("elsewhere:7") and "gpu, cpu" in table[1] and "yes (--gpu)" in table[1]
    assert tiercards(settings, "demo", "workers", "--here").returncode == 1  # not on this host

    _beat(settings, f"{host}:7", ["cpu"], "off")
    here = tiercards(settings, "demo", "workers", "--here")
    assert here.returncode == 0, here.stderr
    assert f"{host}:7" in here.stdout and "elsewhere:7" not in here.stdout and "no (--no-gpu)" in here.stdout

    db = Database(settings)
    with db.write_sessions() as session:  # its last beat is now older than the timeout
        session.execute(update(WorkerBeat).values(last_seen=utcnow() - timedelta(seconds=TIMEOUT_S + 1)))
        session.commit()
    db.dispose()
    assert tiercards(settings, "demo", "workers", "--here").returncode == 1
    assert (
        f"No demo worker has beaten in the last {TIMEOUT_S} s"
        in tiercards(settings, "demo", "workers").stdout
    )


def test_a_shuffle_run_prints_its_first_batch_and_memory_figures() -> None:
    sizes = ["--small-buffer", "2", "--medium-buffer", "4", "--large-buffer", "8", "--example-kb", "8"]
    small = ["--steps", "5", "--input-ms", "4", "--compute-ms", "2", "--batch-size", "2", *sizes]
    result = run_cli("shuffle", *small, "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [v["name"] for v in doc["variants"]] == ["buffer-small", "buffer-medium", "buffer-large"]
    assert [v["peak_buffered_examples"] for v in doc["variants"]] == [1, 3, 7]
    assert [v["model_first_batch_ms"] for v in doc["variants"]] == [6, 10, 18]
    assert all(v["first_batch_ms"] > 0 for v in doc["variants"])

    table = run_cli("shuffle", *small).stdout.splitlines()
    firsts = table[table.index("time to the first batch:") + 1 :][:3]
    assert [line.split("  ")[0] for line in firsts] == [v["label"] for v in doc["variants"]]
    assert all("model" in line for line in firsts)
    memory = table[table.index("host memory held by the buffer:") + 1 :][:3]
    assert ["7 examples" in line for line in memory] == [False, False, True]
