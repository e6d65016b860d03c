"""Loading and validating 1,000 generated cards (target: under 2 s), as a ratio to the floor any
loader pays: reading the same files and parsing their YAML frontmatter, in the same run.

    .venv/bin/python -m bench.load_cards [--cards 1000]
"""

import argparse
import tempfile
from pathlib import Path

import yaml

from app import PROJECT_ROOT
from app.content.catalogue import load
from bench._timing import timed
from bench._verdict import run, verdict

OWNER_CARD = PROJECT_ROOT / "content" / "tf-data-prefetch-last.md"


def generate(folder: Path, count: int) -> None:
    """Copies of the owner's card (a full-size card) under new ids and titles."""
    text = OWNER_CARD.read_text(encoding="utf-8")
    for number in range(count):
        card = text.replace("id: tf-data-prefetch-last", f"id: generated-{number:05d}", 1).replace(
            'title: "Why does', f'title: "Card {number}: why does', 1
        )
        (folder / f"generated-{number:05d}.md").write_text(card, encoding="utf-8")


def read_and_parse_yaml(folder: Path) -> int:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    total = 0
    for path in sorted(folder.glob("*.md")):
        _, front, body = path.read_text(encoding="utf-8").split("---\n", 2)
        total += len(yaml.load(front, Loader=loader)) + len(body)
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        generate(folder, args.cards)
        snapshot = load(folder)
        assert len(snapshot.cards) == args.cards and not snapshot.problems, snapshot.problems[:3]
        catalogue_s = timed(lambda: load(folder))
        bare_s = timed(lambda: read_and_parse_yaml(folder))
    print(f"{args.cards} cards loaded and validated in {catalogue_s:.2f} s (target < 2 s)")
    print(f"floor: reading the same files and parsing their YAML: {bare_s:.2f} s")
    print(f"ratio catalogue/floor: {catalogue_s / bare_s:.2f}")
    verdict(catalogue_s < 2)


if __name__ == "__main__":
    run(main)
