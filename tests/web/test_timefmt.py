"""How a day reads on the page: relative when it is near, the weekday and date otherwise."""

from datetime import UTC, date, datetime

import pytest

from app.web.timefmt import day

pytestmark = pytest.mark.engine_agnostic

NOW = datetime(2026, 12, 2, 0, 30, tzinfo=UTC)  # just after midnight UTC: "today" is the 2nd


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (date(2026, 12, 2), "today"),
        (date(2026, 12, 1), "yesterday"),
        (date(2026, 11, 24), "Tue 24 Nov"),
        (date(2025, 12, 2), "Tue 2 Dec 2025"),
    ],
)
def test_a_day_reads_relative_when_near(value: date, shown: str) -> None:
    assert day(value, NOW) == shown
