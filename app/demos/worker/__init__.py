"""`tiercards worker`: takes demo jobs off the queue and runs them, one at a time, in TensorFlow.

One process holds:
- a huey consumer with ONE worker thread (demos are timed: two at once would skew each other);
- ONE DemoRunner: a child process with TensorFlow imported once and reused between jobs; cancel,
  a time limit or a crash kill it and start a fresh one (app/demos/runner.py);
- a heartbeat thread: every second it stores the current run's pending progress, refreshes its
  `heartbeat_at` (at least every HEARTBEAT interval), reads `cancel_requested`, and refreshes this
  worker's row in `worker_beats` so the web can tell whether any worker is alive.

SIGTERM or SIGINT stop it cleanly: the job in progress is stopped (its child killed) and marked
interrupted, the runner child is stopped, the worker's row is removed. SIGKILL cannot be caught:
then the run's heartbeat goes stale and readers mark it interrupted (app/service.py), and the
runner child exits on its own when it finds its parent's end of the pipe closed.

consumer.py is the process (start-up, the consumer loop, signals, stop), heartbeat.py the
heartbeat thread, execution.py one job (claim, run, how it ended).
"""

from app.demos.worker.consumer import DemoWorker, pid_alive
from app.demos.worker.heartbeat import guess_device

__all__ = ["DemoWorker", "guess_device", "pid_alive"]
