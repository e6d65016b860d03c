"""What the claims child process runs: the entailment model (app/coverage/entailment.py, ONNX
through onnxruntime) loaded once, then one answer's pairs at a time classified.

The worker's runner (app/worker/runner.py) starts this in a process of its own, under the memory
and time limits, so the model is never loaded by the worker or a web replica. A job is
`{"premises": [...], "hypotheses": [...]}`, the pairs `app.coverage.reading.question` asks; the
result is their (n, 3) probabilities. Nothing here imports the database, the queue or the web.
"""

import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any, TypedDict

from app.jobs.child_process import Child, Message, answer, failure


class Job(TypedDict):
    premises: Sequence[str]
    hypotheses: Sequence[str]


def serve(conn: Connection) -> None:
    """The child's loop (protocol in app/worker/runner.py): ready once the model is loaded, then one
    ("job", Job) at a time. Without the model installed it says so and ends: the worker then reads
    no claims lanes."""
    try:
        # Here, not at the top: importing this module must cost nothing where the model is absent.
        from app.coverage.entailment import Entailment

        model = Entailment.load(threads=1)
    except Exception as error:
        conn.send(("error", {"kind": "unavailable", "message": f"{type(error).__name__}: {error}"}))
        return

    def run(job: Job) -> Message:
        try:
            started = time.perf_counter()
            probabilities = model.classify(list(job["premises"]), list(job["hypotheses"]))
            result: dict[str, Any] = {
                "probabilities": probabilities.tolist(),
                "seconds": round(time.perf_counter() - started, 3),
            }
            return ("result", result)
        except Exception as error:
            return failure(error)

    answer(conn, ready={"model": "entailment"}, run=run)


CHILD = Child(
    serve=serve,
    library="onnxruntime",
    missing="onnxruntime is not installed here, so it reads no answers with the entailment model",
    without="reads no answers with the entailment model",
    noun="the claims process",
    starting="loading the entailment model",
    doing="reading the answer",
)
