"""Keeps the worker that `tiercards serve` starts alive: if it dies (killed, out of memory,
a crash), a new one is started, waiting longer after each quick death so a worker that cannot
start does not spin."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import threading
import time

log = logging.getLogger("tiercards.worker")

# A worker that lived this long before dying is restarted at once; one that died sooner waits
# FIRST_BACKOFF_S, doubling up to MAX_BACKOFF_S.
HEALTHY_AFTER_S = 60.0
FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 30.0
POLL_S = 0.5


def worker_command() -> list[str]:
    command = shutil.which("tiercards")
    args = [command, "worker"] if command else [sys.executable, "-m", "app.cli", "worker"]
    # The worker stops by itself if this process dies without stopping it (SIGKILL).
    return [*args, "--parent-pid", str(os.getpid())]


class WorkerSupervisor:
    def __init__(self, command: list[str] | None = None) -> None:
        self.command = command or worker_command()
        self.process: subprocess.Popen[bytes] | None = None
        self.restarts = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="worker-supervisor", daemon=True)

    def start(self) -> None:
        self.process = subprocess.Popen(self.command)
        self._thread.start()

    def _watch(self) -> None:
        backoff = FIRST_BACKOFF_S
        started = time.monotonic()
        while not self._stopping.wait(POLL_S):
            process = self.process
            if process is None or process.poll() is None:
                continue
            lived = time.monotonic() - started
            backoff = FIRST_BACKOFF_S if lived >= HEALTHY_AFTER_S else min(backoff * 2, MAX_BACKOFF_S)
            wait = 0.0 if lived >= HEALTHY_AFTER_S else backoff
            log.warning("the worker exited (%s); starting a new one in %.0f s", process.returncode, wait)
            if self._stopping.wait(wait):
                return
            self.process = subprocess.Popen(self.command)
            self.restarts += 1
            started = time.monotonic()

    def stop(self) -> None:
        """SIGTERM: the worker stops its job (a demo is marked interrupted) and its children."""
        self._stopping.set()
        self._thread.join(timeout=5)
        process = self.process
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
