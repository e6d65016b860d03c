"""`make gpu-check` (bench/gpu_check.py) on a host without a GPU: it says so at once, with its own
exit status, and runs nothing."""

import subprocess
import sys
import time

import pytest

from app import PROJECT_ROOT
from app.demos.worker.capabilities import gpu_device_present
from bench.gpu_check import NO_GPU


@pytest.mark.skipif(gpu_device_present(), reason="checks the refusal on a host without a GPU")
def test_without_a_gpu_it_exits_at_once_with_its_own_status() -> None:
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "bench/gpu_check.py"], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=60
    )
    elapsed = time.monotonic() - started
    assert result.returncode == NO_GPU == 3
    assert result.stderr.startswith("no GPU here:") and "pip install '.[gpu]'" in result.stderr
    assert result.stdout == ""  # no table: nothing ran
    # Sooner than TensorFlow could even be imported, let alone a preset run.
    assert elapsed < 10
