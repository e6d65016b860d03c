"""`tiercards coverage CARD_ID`: the answer on standard input, each answer point covered or not
with its evidence, the pitfalls asserted, the measured figures; `--json` the API's document; an
unknown card, a bad tier or no answer exits non-zero with a sentence saying so."""

import pytest
from typer.testing import CliRunner

from app.cli import cli
from app.coverage.measured import MEASURED
from app.schemas import MAX_ANSWER_CHARS
from tests.factories import DECK, OWNER_CARD

pytestmark = pytest.mark.engine_agnostic

CARD = DECK[OWNER_CARD]
ANSWER = (
    "Prefetch overlaps producing the next batch with consuming the current one.\n"
    "I think prefetch parallelizes map across many threads."
)


def run(*args: str, answer: str = ANSWER) -> tuple[int, str, str]:
    """`tiercards coverage`, reading by words unless the arguments say otherwise."""
    method = [] if any(arg.startswith("--method") for arg in args) else ["--method", "lexical"]
    result = CliRunner().invoke(cli, ["coverage", *method, *args], input=answer)
    return result.exit_code, result.stdout, result.stderr


def test_each_point_is_said_covered_or_not_with_its_evidence() -> None:
    code, out, err = run(OWNER_CARD)
    assert code == 0, err
    lines = out.splitlines()
    first, *others = CARD.points
    at = lines.index(f"covered        {first.plain}")
    assert (
        lines[at + 1].strip()
        == "“Prefetch overlaps producing the next batch with consuming the current one.”"
    )
    for point in others:
        assert f"not found      {point.plain}" in lines
    at = lines.index(f"pitfall        {CARD.pitfalls[0].title.plain}")
    # Words alone do not make the checker sure of a pitfall: the person is asked to check it.
    assert lines[at + 1].strip() == "Check this: “I think prefetch parallelizes map across many threads.”"
    assert lines[-3:] == [
        "Read by word overlap with the card. Suggestions only: your own ticks decide.",
        MEASURED.sentence(),
        MEASURED.pitfall_sentence(),
    ]


def test_an_unknown_method_is_refused_naming_the_methods() -> None:
    code, out, err = run(OWNER_CARD, "--method", "magic")
    assert code == 2 and out == "" and "lexical" in err and "claims" in err


def test_an_unknown_card_is_refused() -> None:
    code, out, err = run("no-such-card")
    assert code == 2 and out == "" and "no-such-card" in err


def test_a_bad_tier_is_refused_naming_the_tiers() -> None:
    code, out, err = run(OWNER_CARD, "--tier", "expert")
    assert code == 2 and out == "" and "junior, middle, senior or principal" in err


def test_no_answer_on_standard_input_is_refused() -> None:
    code, out, err = run(OWNER_CARD, answer=" \n")
    assert code == 1 and out == "" and "no answer on standard input" in err


def test_an_answer_longer_than_an_attempt_takes_is_refused() -> None:
    code, out, err = run(OWNER_CARD, answer="x" * (MAX_ANSWER_CHARS + 1))
    assert code == 1 and out == "" and str(MAX_ANSWER_CHARS) in err


def test_the_command_is_listed_with_its_help() -> None:
    listed = CliRunner().invoke(cli, ["--help"])
    assert "coverage" in listed.stdout
    own = CliRunner().invoke(cli, ["coverage", "--help"])
    said = " ".join(own.stdout.split())  # as wide as the terminal wraps it
    assert own.exit_code == 0 and "read from standard input" in said and "--json" in said
