"""The declaration of which tests run on one engine only is kept true (tests/engines.py): a small
suite of its own is run with the suite's plugin, as each engine's run would. (Not itself marked
engine_agnostic: the small suite makes a database, which the plugin would count as this test's.)"""

import pytest

SUITE = """
import pytest
from tests.services import database_url


@pytest.mark.engine_agnostic
def test_declared_once_but_makes_a_database(tmp_path):
    database_url(tmp_path)


@pytest.mark.engine_agnostic
def test_declared_once_and_pure():
    assert sorted([3, 1, 2]) == [1, 2, 3]


def test_on_both_engines_but_skips():
    pytest.skip("not on this engine")


def test_on_both_engines():
    assert True
"""


@pytest.mark.parametrize(
    ("engine", "outcomes", "said"),
    [
        # A test declared engine-agnostic that makes a database fails, so the declaration stays true.
        ("sqlite", {"passed": 2, "skipped": 1, "failed": 1}, "*_makes_a_database is marked engine_agnostic*"),
        # The declared tests are left out, and nothing else may drop PostgreSQL by skipping.
        ("postgres", {"passed": 1, "failed": 1, "deselected": 2}, "*_but_skips skipped on PostgreSQL*"),
    ],
)
def test_each_engine_runs_what_is_declared_for_it(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    engine: str,
    outcomes: dict[str, int],
    said: str,
) -> None:
    monkeypatch.setenv("TIERCARDS_TEST_DATABASE", engine)
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest("-p", "tests.engines", "-p", "no:cacheprovider")
    result.assert_outcomes(**outcomes)
    result.stdout.fnmatch_lines([said])
