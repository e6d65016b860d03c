"""Export files for the import benchmarks, written straight to disk (a 100 MB file is never one
string in the benchmark's memory either), and a client that sends the CSRF token."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from app.content.catalogue import load
from bench._servers import ROOT

START = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
HEADER = {
    "format": "tiercards-export",
    "version": 2,
    "exported_at": "2026-06-01T00:00:00Z",
    "settings": {"target_tier": "middle", "desired_retention": 0.9, "new_per_day": 10},
}


def _moment(index: int) -> str:
    return (START + timedelta(seconds=index)).isoformat().replace("+00:00", "Z")


def _write(path: Path, lists: dict[str, object]) -> Path:
    """The header, then each list a row at a time (`lists` maps a key to an iterable of rows)."""
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps(HEADER)[:-1])
        for key, rows in lists.items():
            out.write(f', "{key}": [')
            for index, row in enumerate(rows):  # type: ignore[call-overload]
                out.write(("," if index else "") + json.dumps(row, separators=(",", ":")))
            out.write("]")
        out.write("}")
    return path


def bad_file(path: Path, rows: int) -> Path:
    """`rows` review logs that each break the rules (about 13 bytes a row)."""
    return _write(
        path, {"attempts": [], "review_states": [], "review_logs": ({"rating": 9} for _ in range(rows))}
    )


def good_file(path: Path, rows: int) -> Path:
    """`rows` rows: rated answers on the served cards, half of them, each with its review."""
    cards = sorted(load(ROOT / "content").cards)
    answers = rows // 2

    def attempts() -> object:
        for i in range(answers):
            yield {
                "id": i + 1,
                "card_id": cards[i % len(cards)],
                "tier": "middle",
                "kind": "solid",
                "text": f"prefetch overlaps input with compute, answer {i}",
                "seconds": 41.5,
                "points": [],
                "rating": "good",
                "created_at": _moment(i),
            }

    def logs() -> object:
        for i in range(rows - answers):
            yield {
                "card_id": cards[i % len(cards)],
                "tier": "middle",
                "rating": 3,
                "review_datetime": _moment(i),
                "review_duration_ms": 41500,
                "attempt_id": i + 1,
            }

    return _write(path, {"attempts": attempts(), "review_states": [], "review_logs": logs()})


def signed_client(url: str) -> httpx.Client:
    client = httpx.Client(base_url=url, timeout=600)
    client.get("/healthz")
    client.headers["X-CSRF-Token"] = client.cookies["tiercards_csrf"]
    return client


def post_file(client: httpx.Client, path: Path) -> httpx.Response:
    with path.open("rb") as body:
        return client.post("/api/import", content=body, headers={"content-type": "application/json"})
