"""Request bodies as the app's clients send them: one function a body, its fields overridable."""

from typing import Any

from tests.helpers.demos import SMALL


def attempt_payload(**overrides: Any) -> dict[str, Any]:
    """A rated, solid answer at the middle tier (POST /api/cards/{id}/attempts)."""
    payload: dict[str, Any] = {
        "tier": "middle",
        "kind": "solid",
        "text": "prefetch overlaps producing with consuming",
        "seconds": 41.5,
        "rating": "good",
        "points": [0, 1],
    }
    payload.update(overrides)
    return payload


def demo_run_payload(**overrides: Any) -> dict[str, Any]:
    """A placement demo that finishes in about a second (POST /api/demos)."""
    return {"preset": "placement", "params": SMALL, **overrides}


def import_upload(content: bytes) -> dict[str, tuple[str, bytes, str]]:
    """`content` as the import form's file field sends it (POST /api/import, multipart)."""
    return {"file": ("export.json", content, "application/json")}
