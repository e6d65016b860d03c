"""`tiercards worker`: takes jobs off the queue, recordings to transcribe and demos, and runs them
one at a time, each in a child process of its kind.

One process holds:
- ONE consumer loop over the queue lanes it reads (app/jobs/queue.py): the speech lanes first (a
  person waits on the page for the transcript) when it can transcribe, then the demo lanes. Every
  worker reads the lane of presets that run anywhere; a GPU worker (TensorFlow lists a GPU in its runner child, or
  `--gpu` declares one) reads the GPU lane first and then that one, so a single GPU host still
  runs every preset. One job at a time whatever the lanes: demos are timed, and two at once would
  skew each other. `--no-gpu` keeps a worker off the GPU lane and hides the GPUs from its child;
- ONE child process of each kind of job (runner.py, `ChildRunner`), with its library loaded once
  and reused between jobs; cancel, a time limit, the memory limit or a crash kill it and start a
  fresh one. Each domain supplies its child and the executor of its jobs (app/jobs/executors.py),
  and supplies.py lists them: demos a child with TensorFlow, which every worker needs
  (app/demos/child.py, execution.py); speech, where faster-whisper is installed and the model
  loads, a child with the speech model, under a time limit per recording (app/speech/child.py,
  transcription.py; app/speech/recordings.py has the rules);
- a heartbeat thread: every second it stores the current run's pending progress, refreshes its
  `heartbeat_at` (at least every HEARTBEAT interval), reads `cancel_requested`, and refreshes this
  worker's row in `worker_beats`, with its capabilities (the lanes it reads), so the web can tell
  whether any worker, and any GPU worker, is alive.

Several workers, on one host or many, share one queue (a Redis QUEUE_URL across hosts): a message
is taken by one of them, and the claim in the database (claims.claim) makes a run that was queued
twice still run once.

SIGTERM or SIGINT stop it cleanly: the job in progress is stopped (its child killed) and marked
interrupted, the children are stopped, the worker's row is removed. SIGKILL cannot be caught:
then the run's heartbeat goes stale, readers show it interrupted and the other workers' upkeep
stores that (app/demos/claims.py), as it queues again a job the dead worker had taken but not
claimed; the runner child exits on its own when it finds its parent's end of the pipe closed.

consumer.py is the process (start-up, the consumer loop, signals, stop), capabilities.py what it
can take, heartbeat.py the heartbeat thread, runner.py the child processes, supervisor.py what
keeps the worker `tiercards serve` starts alive. This file imports none of them: a child process
starts by importing runner.py, and must not load the worker's database and queue with it.
"""
