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


def _run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, engine: str) -> pytest.RunResult:
    monkeypatch.setenv("TIERCARDS_TEST_DATABASE", engine)
    pytester.makepyfile(test_suite=SUITE)
    return pytester.runpytest("-p", "tests.engines", "-p", "no:cacheprovider")


def test_on_sqlite_a_test_declared_engine_agnostic_that_makes_a_database_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _run(pytester, monkeypatch, "sqlite")
    result.assert_outcomes(passed=2, skipped=1, failed=1)
    result.stdout.fnmatch_lines(["*test_declared_once_but_makes_a_database is marked engine_agnostic*"])


def test_on_postgres_the_declared_tests_are_left_out_and_a_skip_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _run(pytester, monkeypatch, "postgres")
    result.assert_outcomes(passed=1, failed=1, deselected=2)
    result.stdout.fnmatch_lines(["*test_on_both_engines_but_skips skipped on PostgreSQL*"])
