"""`tiercards demo run`: one demo here and now, no queue; bounds exit 2 with the message."""

import json
import subprocess
import sys

from app import PROJECT_ROOT


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
