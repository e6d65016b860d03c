"""The deck's TensorFlow 2.21 claims that need a process of their own, measured on this host.

    .venv/bin/python -m bench.deck_recheck

tests/content/test_tf_claims.py checks what one process can see. Two claims need a fresh one,
because TensorFlow reads its logging and thread settings once, at start-up:

- AUTO sharding falls back to DATA without a word in the log: the lines saying so, at
  TF_CPP_MIN_LOG_LEVEL=0, against the same run with auto_shard.cc's verbose log on (the baseline
  that proves the line exists);
- map calls run on a private pool only when `private_threadpool_size` is set: the threads a
  parallel map's calls ran on by default, with the runtime's inter-op setting changed, and with a
  private pool of 4, each against the host's core count.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time

from bench._verdict import run

FALLBACK = "AUTO sharding policy will apply DATA sharding policy"
CALLS = 4


def _auto_shard() -> None:
    import tensorflow as tf
    from tensorflow.python.distribute import input_ops

    source = tf.data.Dataset.from_tensor_slices(list(range(8)))
    kept = [int(x) for x in input_ops.auto_shard_dataset(source, num_shards=2, index=1)]
    print("kept", kept)


def _threads(inter_op: int, private: int) -> None:
    import tensorflow as tf

    if inter_op:
        tf.config.threading.set_inter_op_parallelism_threads(inter_op)

    def thread_id(_: object) -> int:
        time.sleep(0.02)  # long enough for the calls in flight to overlap
        return threading.get_native_id()

    dataset = tf.data.Dataset.range(64).map(
        lambda x: tf.py_function(thread_id, [x], tf.int64), num_parallel_calls=CALLS
    )
    if private:
        options = tf.data.Options()
        options.threading.private_threadpool_size = private
        dataset = dataset.with_options(options)
    print("threads", len({int(x) for x in dataset}))


def _child(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench.deck_recheck", "--child", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.child[0] == "auto-shard":
            _auto_shard()
        else:
            _threads(inter_op=int(args.child[1]), private=int(args.child[2]))
        return

    quiet = _child(["auto-shard"], {"TF_CPP_MIN_LOG_LEVEL": "0"})
    verbose = _child(["auto-shard"], {"TF_CPP_MIN_LOG_LEVEL": "0", "TF_CPP_VMODULE": "auto_shard=2"})
    said = [run.stderr.count(FALLBACK) for run in (quiet, verbose)]
    print(f"AUTO over from_tensor_slices, worker 1 of 2: {quiet.stdout.strip()} (every second element: DATA)")
    print(
        f"  fallback lines at TF_CPP_MIN_LOG_LEVEL=0: {said[0]}, with TF_CPP_VMODULE=auto_shard=2: {said[1]}"
    )

    cores = os.cpu_count() or 1
    quiet_env = {"TF_CPP_MIN_LOG_LEVEL": "2"}
    print(f"map(num_parallel_calls={CALLS}) calls ran on, against this host's {cores} cores:")
    for label, inter_op, private in (
        ("default options", 0, 0),
        ("inter-op threads set to 6", 6, 0),
        ("private_threadpool_size=4", 0, 4),
    ):
        threads = int(_child(["threads", str(inter_op), str(private)], quiet_env).stdout.split()[-1])
        print(f"  {label}: {threads} threads = {threads / cores:.2f}x the cores")


if __name__ == "__main__":
    run(main)
