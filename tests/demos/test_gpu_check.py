"""`make gpu-check` (bench/gpu_check.py) on a host without a GPU: it says so at once, with its own
exit status, and runs nothing."""

import subprocess
import sys

import pytest

from app import PROJECT_ROOT
from app.worker.capabilities import gpu_device_present
from bench.gpu_check import NO_GPU

pytestmark = pytest.mark.engine_agnostic

# Runs the script as `python bench/gpu_check.py` does, then says whether TensorFlow was imported.
_RUN_AND_REPORT = """
import runpy, sys
try:
    runpy.run_path("bench/gpu_check.py", run_name="__main__")
finally:
    print("tensorflow imported" if "tensorflow" in sys.modules else "tensorflow not imported")
"""


@pytest.mark.skipif(gpu_device_present(), reason="checks the refusal on a host without a GPU")
def test_without_a_gpu_it_exits_at_once_with_its_own_status() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _RUN_AND_REPORT], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == NO_GPU == 3
    assert result.stderr.startswith("no GPU here:") and "pip install '.[gpu]'" in result.stderr
    # No table (nothing ran), and at once: before TensorFlow is even imported, let alone a preset run.
    assert result.stdout == "tensorflow not imported\n"
