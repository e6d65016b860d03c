"""What a worker takes from the queue: the lanes it reads, decided by whether it has a GPU.

Before TensorFlow has started, the device files are the guess (`guess_device`); then the runner
child says which GPUs TensorFlow lists, and that decides. `tiercards worker --gpu` declares
a GPU worker whatever TensorFlow finds (a GPU preset it takes then fails, saying TensorFlow found
no GPU); `--no-gpu` refuses GPU work on a host that has one, and hides the GPUs from its child.
"""

from __future__ import annotations

import glob
from collections.abc import Sequence
from dataclasses import dataclass

from app.jobs.queue import lanes_for

# The worker's --gpu/--no-gpu flag (None: neither) as stored with its beat.
GPU_SETTINGS: dict[bool | None, str] = {None: "auto", True: "on", False: "off"}


def gpu_device_present() -> bool:
    """An NVIDIA device file: the first guess at a GPU, before TensorFlow has looked."""
    return bool(glob.glob("/dev/nvidia[0-9]*"))


def guess_device() -> tuple[str, str]:
    """The device and compute a worker reports before TensorFlow has run anything."""
    if not gpu_device_present():
        return "CPU (no GPU on this host)", "simulated"
    return "GPU device present (TensorFlow confirms it when it starts)", "unknown"


@dataclass(frozen=True)
class Capabilities:
    gpu: bool
    setting: str  # auto, on or off: GPU_SETTINGS

    @property
    def lanes(self) -> tuple[str, ...]:
        return lanes_for(self.gpu)


def decide(flag: bool | None, gpus: Sequence[str] | None) -> Capabilities:
    """The worker's capabilities from its flag and the GPUs TensorFlow lists (None: not asked yet)."""
    setting = GPU_SETTINGS[flag]
    if flag is not None:
        return Capabilities(flag, setting)
    if gpus is None:
        return Capabilities(gpu_device_present(), setting)
    return Capabilities(bool(gpus), setting)


def mismatch(flag: bool | None, gpus: Sequence[str]) -> str | None:
    """What the log should say when the flag, the device files and TensorFlow disagree."""
    if flag is True and not gpus:
        return (
            "declared a GPU worker (--gpu) but TensorFlow lists no GPU here: the GPU demos it "
            "takes will fail and say so"
        )
    if flag is None and not gpus and gpu_device_present():
        return (
            "this host has a GPU device but TensorFlow lists none, so this worker takes no GPU "
            "demos: install the CUDA build (pip install '.[gpu]')"
        )
    return None
