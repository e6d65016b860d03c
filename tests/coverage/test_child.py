"""The claims child: the entailment model loaded once, then an answer's pairs classified, each
into the model's three probabilities; and, where the model is not installed, a clean "unavailable"
that leaves the worker without the claims lanes rather than failing it."""

import sys
import threading
from multiprocessing import Pipe

import pytest

from app.coverage import reading
from app.coverage.child import CHILD, serve
from app.jobs.child_process import ChildUnavailable
from app.worker.runner import ChildRunner
from tests.factories import DECK, OWNER_CARD
from tests.helpers.suggestions import ANSWER


def test_without_the_model_the_child_says_it_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "app.coverage.entailment", None)  # as if not installed
    parent, child = Pipe()
    thread = threading.Thread(target=serve, args=(child,))
    thread.start()
    thread.join(timeout=10)
    kind, info = parent.recv()
    assert kind == "error" and info["kind"] == "unavailable"
    assert isinstance(CHILD.error(info), ChildUnavailable)


@pytest.mark.claims_model
def test_the_child_classifies_each_pair_of_an_answer() -> None:
    card = DECK[OWNER_CARD]
    asked = reading.question(card, follow_up=None, text=ANSWER)
    with ChildRunner(CHILD, None) as runner:
        runner.warm()
        result = runner.run({"premises": asked.premises, "hypotheses": asked.hypotheses}, timeout_s=60)
    probabilities = result["probabilities"]
    assert len(probabilities) == len(asked.premises) > 0
    assert all(len(row) == 3 and abs(sum(row) - 1) < 1e-3 for row in probabilities)
    coverage = reading.answer(card, follow_up=None, text=ANSWER, probabilities=probabilities)
    assert coverage.method == "claims" and [hit.id for hit in coverage.points] == list(card.point_ids)
