"""The speech model: found in its installed package or at SPEECH_MODEL, refused when a file differs
from its manifest, loaded once, and primed with the card's own terms."""

import hashlib
import keyword
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from app import PROJECT_ROOT
from app.content.parser import parse_card
from app.exceptions import Unavailable
from app.speech import recogniser
from tests.factories import OWNER_CARD

pytestmark = pytest.mark.engine_agnostic


@pytest.fixture(scope="module")
def owner_card():
    return parse_card(PROJECT_ROOT / "content" / f"{OWNER_CARD}.md")


def copy_of_bundled(folder: Path) -> Path:
    """The bundled model's files in a folder of the test's own (model.bin linked, not copied)."""
    bundled = recogniser.resolve(None)
    folder.mkdir()
    for name in bundled.manifest:
        if name == "model.bin":
            (folder / name).symlink_to(bundled.path / name)
        else:
            shutil.copyfile(bundled.path / name, folder / name)
    return folder


def write_sums(folder: Path) -> None:
    lines = [
        f"{hashlib.sha256((folder / n).read_bytes()).hexdigest()}  {n}"
        for n in sorted(recogniser.files_of(folder))
    ]
    (folder / recogniser.SUMS_FILE).write_text("\n".join(lines) + "\n")


def test_the_default_is_the_bundled_model_and_its_files_match_the_manifest() -> None:
    bundled = recogniser.resolve(None)
    assert bundled.manifest == recogniser.BUNDLED_MANIFEST
    assert set(recogniser.files_of(bundled.path)) == set(recogniser.BUNDLED_MANIFEST)
    recogniser.verify(bundled)


def test_a_changed_file_of_the_bundled_model_is_refused(tmp_path: Path) -> None:
    folder = copy_of_bundled(tmp_path / "model")
    config = folder / "config.json"
    config.write_text(config.read_text().replace('"suppress_blank"', '"suppress_blank_"', 1) + " ")
    with pytest.raises(Unavailable) as refused:
        recogniser.verify(
            recogniser.ModelFolder(path=folder, manifest=recogniser.BUNDLED_MANIFEST, name="copy")
        )
    assert "config.json" in refused.value.message and "changed" in refused.value.message


def test_a_missing_or_unlisted_file_is_refused(tmp_path: Path) -> None:
    folder = copy_of_bundled(tmp_path / "model")
    (folder / "tokenizer.json").unlink()
    with pytest.raises(Unavailable) as missing:
        recogniser.verify(
            recogniser.ModelFolder(path=folder, manifest=recogniser.BUNDLED_MANIFEST, name="copy")
        )
    assert "tokenizer.json" in missing.value.message
    shutil.copyfile(recogniser.resolve(None).path / "tokenizer.json", folder / "tokenizer.json")
    (folder / "preprocessor_config.json").write_text("{}")
    with pytest.raises(Unavailable) as unlisted:
        recogniser.verify(
            recogniser.ModelFolder(path=folder, manifest=recogniser.BUNDLED_MANIFEST, name="copy")
        )
    assert "preprocessor_config.json" in unlisted.value.message


def test_speech_model_names_a_folder_whose_sums_file_is_checked(tmp_path: Path) -> None:
    folder = copy_of_bundled(tmp_path / "larger")
    with pytest.raises(Unavailable) as unsummed:
        recogniser.resolve(str(folder))
    assert recogniser.SUMS_FILE in unsummed.value.message
    write_sums(folder)
    # Written again, `sha256sum *` lists the sums file itself; that line is not a model file.
    sums = folder / recogniser.SUMS_FILE
    sums.write_text(
        sums.read_text() + f"{hashlib.sha256(sums.read_bytes()).hexdigest()}  {recogniser.SUMS_FILE}\n"
    )
    chosen = recogniser.resolve(str(folder))
    assert chosen.path == folder and set(chosen.manifest) == set(recogniser.BUNDLED_MANIFEST)
    # What a recording stores as its model: the folder's name, not where this server keeps it.
    assert chosen.name == recogniser.resolve(f"{folder}/").name == "larger"
    recogniser.verify(chosen)
    (folder / "vocabulary.txt").write_text("changed")
    with pytest.raises(Unavailable) as changed:
        recogniser.verify(recogniser.resolve(str(folder)))
    assert "vocabulary.txt" in changed.value.message


def test_speech_model_that_is_not_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(Unavailable) as refused:
        recogniser.resolve(str(tmp_path / "nowhere"))
    assert "SPEECH_MODEL" in refused.value.message and "folder" in refused.value.message


def test_a_card_s_terms_come_from_its_title_points_topics_and_code(owner_card) -> None:
    terms = recogniser.card_terms(owner_card)
    # The title's code, `tf.data.Dataset.prefetch(tf.data.AUTOTUNE)`, as the names one says.
    assert {"tf.data", "prefetch", "AUTOTUNE"} <= set(terms)
    assert set(owner_card.topics) <= set(terms)
    # The code's API names and keyword arguments, not its local variables.
    assert {"interleave", "num_parallel_calls", "cycle_length", "shuffle", "batch"} <= set(terms)
    assert not {"ds", "tf", "parse_fn"} & set(terms)
    assert not [term for term in terms if keyword.iskeyword(term)]
    assert len({term.lower() for term in terms}) == len(terms) <= recogniser.MAX_TERMS


def test_every_card_of_the_deck_has_terms_within_the_prompt_budget() -> None:
    for path in sorted((PROJECT_ROOT / "content").glob("*.md")):
        if path.name == "README.md":
            continue
        card = parse_card(path)
        terms = recogniser.card_terms(card)
        assert terms, card.id
        prompt = recogniser.initial_prompt(terms)
        assert len(prompt) <= recogniser.MAX_PROMPT_CHARS
        assert prompt.startswith(terms[0]) and not prompt.endswith(".")


def test_the_prompt_keeps_the_first_terms_when_there_are_too_many() -> None:
    terms = tuple(f"term{n:03d}" for n in range(500))
    prompt = recogniser.initial_prompt(terms)
    assert len(prompt) <= recogniser.MAX_PROMPT_CHARS
    kept = prompt.split(", ")
    assert kept == list(terms[: len(kept)])
    assert recogniser.initial_prompt(()) == ""


def test_the_model_is_loaded_once() -> None:
    assert recogniser.load(None) is recogniser.load(None)


@pytest.mark.parametrize(
    ("compression_ratio", "avg_logprob", "kept"),
    [
        (1.2, -0.2, True),  # an answer, read with confidence
        (2.4, -1.0, True),  # at the edge of both checks
        (6.5, -0.4, False),  # "n-n-n-n-n-n": a draw that repeats itself
        (0.4, -1.4, False),  # "Thank you." after the answer: a draw the model gives little weight
    ],
)
def test_a_window_whose_reading_failed_the_model_s_own_checks_adds_no_words(
    compression_ratio: float, avg_logprob: float, kept: bool
) -> None:
    segment = SimpleNamespace(compression_ratio=compression_ratio, avg_logprob=avg_logprob)
    assert recogniser.passed_checks(segment, recogniser.QUALITY_CHECKS) is kept
    # A check turned off (a benchmark comparing decoding options may) keeps what it would refuse.
    assert recogniser.passed_checks(
        segment, {"compression_ratio_threshold": None, "log_prob_threshold": None}
    )
