"""The claims model (app/coverage/entailment.py) as the installed tiercards-claims-model package
ships it: it loads only the pinned file, and reads a point's own phrasing, a plain negation and a
true sentence that echoes a pitfall's words as a person would."""

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest
import tiercards_claims_model

from app.coverage.entailment import CONTRADICT, ENTAIL, LABELS, MODEL_SHA256, Entailment, ModelRefused
from tests.factories import DECK, OWNER_CARD

pytestmark = pytest.mark.engine_agnostic

CARD = DECK[OWNER_CARD]


@pytest.fixture(scope="module")
def model() -> Entailment:
    return Entailment.load()


def point(starts: str) -> str:
    return next(p.plain for p in CARD.points if p.plain.startswith(starts))


def pitfall(starts: str) -> str:
    return next(f.title.plain for f in CARD.pitfalls if f.title.plain.startswith(starts))


def test_the_installed_model_is_the_pinned_one(model: Entailment) -> None:
    folder = tiercards_claims_model.MODEL_DIR
    assert hashlib.sha256((folder / "model.onnx").read_bytes()).hexdigest() == MODEL_SHA256
    assert (folder / "tokenizer.json").is_file()


def test_probabilities_per_pair_in_the_declared_order(model: Entailment) -> None:
    found = model.classify(
        ["prefetch overlaps input with compute"] * 2, [point("overlap"), point("a background")]
    )
    assert found.shape == (2, len(LABELS)) and LABELS == ("entail", "neutral", "contradict")
    assert np.allclose(found.sum(axis=1), 1.0, atol=1e-4)
    assert model.classify([], []).shape == (0, 3)
    with pytest.raises(ValueError):
        model.classify(["one"], [])


def test_a_points_own_phrasing_entails_it(model: Entailment) -> None:
    overlap = next(p for p in CARD.points if p.plain.startswith("overlap"))
    found = model.classify(list(overlap.phrasings), [overlap.plain] * len(overlap.phrasings))
    assert (found.argmax(axis=1) == ENTAIL).all(), found


def test_a_plain_negation_of_a_point_contradicts_it(model: Entailment) -> None:
    found = model.classify(
        ["It is not true that prefetch runs the upstream pipeline on one background producer."],
        [point("a background")],
    )
    assert found[0].argmax() == CONTRADICT, found


def test_a_true_sentence_echoing_a_pitfall_does_not_assert_it(model: Entailment) -> None:
    found = model.classify(["AUTOTUNE lets tf.data pick the buffer size."], [pitfall("AUTOTUNE")])
    assert found[0].argmax() != ENTAIL, found


def test_a_model_file_that_is_not_the_pinned_one_is_refused(tmp_path: Path) -> None:
    for name in ("model.onnx", "tokenizer.json", "labels.json"):
        shutil.copyfile(tiercards_claims_model.MODEL_DIR / name, tmp_path / name)
    assert Entailment.load(directory=tmp_path) is not None
    data = bytearray((tmp_path / "model.onnx").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "model.onnx").write_bytes(bytes(data))
    with pytest.raises(ModelRefused, match="sha256"):
        Entailment.load(directory=tmp_path)
