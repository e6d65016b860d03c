"""The geometry of the dashboard's bar charts: one horizontal bar per member, drawn as SVG by the
template. Horizontal, so a long list of names still fits a phone's width."""

from collections.abc import Sequence
from dataclasses import dataclass

ROW = 22  # px from one bar to the next
BAR = 14  # a bar's thickness
LABEL = 110  # px for the names left of the bars
TRACK = 200  # px of the longest bar
VALUE = 50  # px for the value right of the bars
LABEL_CHARS = 14  # longer names are cut to fit LABEL (the bar's tooltip has them whole)


@dataclass(frozen=True)
class Bar:
    name: str
    label: str  # the name, cut to fit
    value: str  # as printed beside the bar
    y: int
    length: float  # 0 draws no bar (nothing, or no value)


@dataclass(frozen=True)
class BarChart:
    bars: list[Bar]
    width: int = LABEL + TRACK + VALUE
    label_width: int = LABEL
    track: int = TRACK
    thickness: int = BAR

    @property
    def height(self) -> int:
        return len(self.bars) * ROW + 4


def _cut(name: str) -> str:
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "\u2026"


def bar_chart(rows: Sequence[tuple[str, float | None, str]], peak: float) -> BarChart:
    """`rows` are (name, value, value as text); a bar of `peak` fills the track."""
    scale = TRACK / peak if peak > 0 else 0.0
    return BarChart(
        [
            Bar(name, _cut(name), text, 2 + i * ROW, round((value or 0) * scale, 1))
            for i, (name, value, text) in enumerate(rows)
        ]
    )
