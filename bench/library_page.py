"""The library page (`/`) over 1,000 cards, as a ratio to the card page's time in the same run
(target: the library renders in under 100 ms at p99).

Each request asks for a URL the page cache has not seen (a `run` query parameter nobody reads),
so every one is rendered; the same URL asked again, served from the page cache, is printed beside.

    .venv/bin/python -m bench.library_page [--cards 1000] [--requests 200] [--template CARD.md]
"""

import argparse
import itertools
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from app import PROJECT_ROOT
from app.content.catalogue import load
from app.content.tiers import LEVELS
from app.presets import PRESETS
from bench._servers import migrated_data_dir, uvicorn_server
from bench._verdict import run, verdict

OWNER_CARD = PROJECT_ROOT / "content" / "tf-data-prefetch-last.md"
TOPICS = (
    "tf.data",
    "input pipelines",
    "performance",
    "distributed training",
    "GPUs",
    "mixed precision",
    "data loading",
    "parallelism",
    "memory",
    "profiling",
    "Keras",
    "serving",
)
TARGET_MS = 100.0


def _front_matter(number: int) -> dict[str, str]:
    """Varied the way a real deck varies: levels in turn, one to three topics, zero to three demos."""
    topics = [TOPICS[(number * 7 + shift) % len(TOPICS)] for shift in range(1 + number % 3)]
    presets = list(PRESETS)
    demos = [presets[(number + shift) % len(presets)] for shift in range(number % 4)]
    return {
        "id": f"generated-{number:05d}",
        "title": f'"Card {number}: why does `prefetch` go last in pipeline {number}?"',
        "level": LEVELS[number % len(LEVELS)],
        "topics": "[" + ", ".join(topics) + "]",
        "demos": "[" + ", ".join(demos) + "]",
    }


def generate(folder: Path, count: int, card: Path = OWNER_CARD) -> None:
    """Copies of a full-size card (the owner's) under new ids, titles, levels, topics and demos."""
    template = card.read_text(encoding="utf-8").splitlines(keepends=True)
    for number in range(count):
        values = _front_matter(number)
        lines = [
            f"{key}: {values[key]}\n" if (key := line.split(":", 1)[0]) in values else line
            for line in template
        ]
        (folder / f"{values['id']}.md").write_text("".join(lines), encoding="utf-8")


def timings_ms(client: httpx.Client, url: Callable[[], str], count: int) -> list[float]:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        response = client.get(url())
        times.append((time.perf_counter() - start) * 1000)
        response.raise_for_status()
    return times


def p99(times: list[float]) -> float:
    return statistics.quantiles(times, n=100)[98]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--template", type=Path, default=OWNER_CARD, help="the card to copy")
    args = parser.parse_args()
    card_url = "/cards/generated-00000?tier=principal"
    fresh = itertools.count()
    pages: dict[str, Callable[[], str]] = {
        "library": lambda: f"/?run={next(fresh)}",
        "card": lambda: f"{card_url}&run={next(fresh)}",
        "library, cached": lambda: "/",
        "card, cached": lambda: card_url,
    }
    times: dict[str, list[float]] = {name: [] for name in pages}
    with tempfile.TemporaryDirectory() as folder:
        cards = Path(folder) / "cards"
        cards.mkdir()
        generate(cards, args.cards, args.template)
        snapshot = load(cards)
        assert len(snapshot.cards) == args.cards and not snapshot.problems, snapshot.problems[:3]
        env = migrated_data_dir(Path(folder)) | {"CONTENT_DIR": str(cards)}
        with (
            uvicorn_server("app.factory:create_app", env, factory=True) as url,
            httpx.Client(base_url=url, timeout=30) as client,
        ):
            library = client.get("/")
            listed = library.text.count('class="card-item"')
            assert listed == args.cards, f"the library lists {listed} of {args.cards} cards"
            for page in pages.values():
                timings_ms(client, page, 10)  # warm
            # Interleaved in rounds, so background noise hits every page alike.
            for _ in range(args.requests // 10):
                for name, page in pages.items():
                    times[name] += timings_ms(client, page, 10)
    print(f"{args.cards} cards; library page {len(library.content) / 1024:.0f} KiB")
    for name, values in times.items():
        print(f"{name:>16}: p50 {statistics.median(values):6.1f} ms, p99 {p99(values):6.1f} ms")
    library_p50, card_p50 = statistics.median(times["library"]), statistics.median(times["card"])
    library_p99 = p99(times["library"])
    print(f"ratio library/card (rendered, p50): {library_p50 / card_p50:.1f}")
    print(
        f"library rendered: p50 {library_p50:.1f} ms, p99 {library_p99:.1f} ms (target p99 < {TARGET_MS:.0f} ms)"
    )
    verdict(library_p99 < TARGET_MS)


if __name__ == "__main__":
    run(main)
