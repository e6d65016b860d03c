"""Which tests run on both database engines, and the checks that keep that declaration true.

Every test runs on SQLite, and again on PostgreSQL (`TIERCARDS_TEST_DATABASE=postgres`) unless it
is engine-agnostic: a parser, a template, a pure function, a file of the deployment, or the
browser's own behaviour. Such a test says so with `pytestmark = pytest.mark.engine_agnostic`, or
lives in a folder of `AGNOSTIC_FOLDERS`. The PostgreSQL run deselects exactly those, and:

- on PostgreSQL, a test that skips fails: nothing outside the declared set may quietly drop the
  second engine;
- on SQLite, a marked test that provisions a database or checks out a connection fails: it touches
  storage, so it must run on both engines.

The browser's tests drive a real server, whose database lives in another process; what they
store is checked on both engines by the API and page tests, so their folder is declared whole.
"""

from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlalchemy.pool import Pool

from tests import services

MARKER = "engine_agnostic"
TESTS = Path(__file__).parent
AGNOSTIC_FOLDERS = ("browser",)


def is_agnostic(item: pytest.Item) -> bool:
    return item.get_closest_marker(MARKER) is not None or _in_agnostic_folder(item)


def _in_agnostic_folder(item: pytest.Item) -> bool:
    return any(item.path.is_relative_to(TESTS / folder) for folder in AGNOSTIC_FOLDERS)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}: runs on SQLite only; it touches no database (tests/engines.py checks that)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if services.suite_engine() != "postgres":
        return
    once = [item for item in items if is_agnostic(item)]
    if once:
        config.hook.pytest_deselected(items=once)
        items[:] = [item for item in items if not is_agnostic(item)]


_checkouts = 0


@event.listens_for(Pool, "checkout")
def _count_checkout(*_: object) -> None:
    global _checkouts
    _checkouts += 1


def _storage_touched() -> int:
    return _checkouts + services.provisioned


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report: pytest.TestReport = yield
    if services.suite_engine() == "postgres" and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} skipped on PostgreSQL ({report.longrepr!r}). A test that touches storage "
            "runs on both engines; one that does not is marked engine_agnostic (tests/engines.py)."
        )
    return report


# Test modules that made a database as they were imported (an app built at module level).
_provisioned_on_import: set[str] = set()


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, object, object]:
    before = services.provisioned
    report = yield
    if isinstance(collector, pytest.Module) and services.provisioned != before:
        _provisioned_on_import.add(collector.nodeid)
    return report


def _touching_no_storage(item: pytest.Item, what: str) -> Generator[None, object, object]:
    """Runs a phase of `item`; fails it when it is marked engine_agnostic and `what` happened, or
    its module made a database as it was imported."""
    before = _storage_touched()
    result = yield
    if services.suite_engine() != "sqlite" or item.get_closest_marker(MARKER) is None:
        return result
    if item.nodeid.split("::")[0] in _provisioned_on_import:
        what = "its module made a database when it was imported"
    elif _storage_touched() == before:
        return result
    pytest.fail(
        f"{item.nodeid} is marked engine_agnostic but {what}: it touches storage, so it must run on "
        "PostgreSQL too. Remove the marker (tests/engines.py).",
        pytrace=False,
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _touching_no_storage(item, "its fixtures made or opened a database"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _touching_no_storage(item, "it opened a database connection"))
