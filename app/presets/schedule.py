"""The input cost schedule and the producer/consumer queue model.

Shared by the pipelines (which sleep the schedule) and the models (which add it up). Input cost
is modelled per batch (``input_ms``); the pipelines spread it evenly over the ``batch_size``
examples of a batch, so "prefetch before batch" buffers examples, not batches.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

# Steps at the start of every variant left out of medians, means and p90: the first `next()`
# starts tf.data's background threads and the first buffer fill, which is not the steady state.
WARMUP_STEPS = 2


def batch_input_ms(params: Mapping[str, int], batch_index: int) -> float:
    """Producer cost of batch `batch_index`: constant, or bursty where jitter_pct is a parameter.

    Bursty input starts with a run of fast batches, then alternates runs of `burst_len` slow
    and fast batches, so the mean over whole cycles is exactly `input_ms`.
    """
    mean = float(params["input_ms"])
    if "jitter_pct" not in params:
        return mean
    jitter = params["jitter_pct"] / 100.0
    slow = (batch_index // params["burst_len"]) % 2 == 1
    return mean * (1 + jitter) if slow else mean * (1 - jitter)


def simulate_prefetch(input_ms: Sequence[float], *, compute_ms: float, buffer: int | None) -> list[float]:
    """Step durations of the textbook producer/consumer model, one per batch in `input_ms`.

    buffer 0 means no prefetch: the consumer asks, then the producer builds the batch. buffer k
    means a background producer that may run up to k finished batches ahead (it starts batch j
    once batch j-k has been taken), as tf.data's prefetch does. None means an unbounded buffer.
    """
    steps: list[float] = []
    taken: list[float] = []  # when the consumer took batch j
    consumer_free = 0.0
    producer_free = 0.0
    for j, cost in enumerate(input_ms):
        if buffer == 0:
            ready = consumer_free + cost
        else:
            start = producer_free
            if buffer is not None and j >= buffer:
                start = max(start, taken[j - buffer])
            producer_free = start + cost
            ready = producer_free
        take = max(consumer_free, ready)
        taken.append(take)
        step_end = take + compute_ms
        steps.append(step_end - consumer_free)
        consumer_free = step_end
    return steps


def replayed_mean(params: Mapping[str, int], *, buffer: int | None, extra_input_ms: float = 0.0) -> float:
    """Mean modelled step over the same steps the measurement keeps (warm-up left out).

    `extra_input_ms` adds a fixed producer cost per batch, for explaining a measurement whose
    producer does real work beyond input_ms (filling large batches); the card's model uses 0.
    """
    n = params["steps"]
    costs = [batch_input_ms(params, j) + extra_input_ms for j in range(n)]
    steps = simulate_prefetch(costs, compute_ms=float(params["compute_ms"]), buffer=buffer)[WARMUP_STEPS:]
    return sum(steps) / len(steps)
