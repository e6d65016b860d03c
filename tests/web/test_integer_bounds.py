"""Every integer a request can carry, found from the app's own schema (pages included): one that
no column can hold (past 2^63 - 1, below the smallest allowed) or written in digits other than
ASCII is a 404 or a 422, never a 500, and stores nothing. A new route's integers are walked too;
a new JSON body needs an example below, or this fails saying so."""

import copy
import threading
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.web.openapi import _full_schema
from tests.factories import OWNER_CARD
from tests.helpers.payloads import attempt_payload

TOO_BIG = 2**63
TOO_SMALL = -(2**63) - 1
NOT_ASCII = ("²", "٣")
# A value for each path parameter that is not an integer, so the integer next to it is judged.
PATH_VALUES = {"card_id": OWNER_CARD, "run_id": "1", "name": "bob", "token": "x", "note_key": "00000000"}
REFUSED = (404, 422)


def _examples(root: TestClient) -> dict[tuple[str, str], list[Any]]:
    """JSON bodies each route accepts, to spoil one integer of at a time (a route naming a session
    is sent to root's own, SESSION)."""
    follow_up = attempt_payload(kind="follow-up", follow_up=0, tier="senior", points=[], rating=None)
    for body in (attempt_payload(), follow_up):
        assert root.post(f"/api/cards/{OWNER_CARD}/attempts", json=body).status_code == 201, body
    interview = {"cards": [OWNER_CARD, "tf-data-shuffle-buffer"], "tier": "junior", "minutes": 30}
    started = root.post("/api/interviews", json=interview)
    assert started.status_code == 201, started.text
    export = root.get("/api/export.json").json()
    SESSION["session_id"] = str(started.json()["id"])
    return {
        ("POST", "/api/interviews"): [interview],
        ("POST", "/api/interviews/{session_id}/answers"): [{"text": "no idea", "seconds": 5}],
        ("POST", "/api/cards/{card_id}/attempts"): [attempt_payload(), follow_up],
        ("PUT", "/api/settings"): [{"target_tier": "principal", "desired_retention": 0.9, "new_per_day": 7}],
        ("POST", "/api/import"): [export],
        ("POST", "/api/demos"): [{"preset": "placement", "card_id": OWNER_CARD, "params": {"steps": 6}}],
        ("POST", "/api/author/check"): [{"text": "no integer here"}],
        ("POST", "/api/cards/{card_id}/coverage"): [{"tier": "middle", "text": "no integer here"}],
    }


def _operations(app: FastAPI) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, operations in _full_schema(app)["paths"].items():
        for method, operation in operations.items():
            yield method.upper(), path, operation


def _is_integer(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "integer" or any(_is_integer(s) for s in schema.get("anyOf", []))


def _minimum(schema: dict[str, Any]) -> int | None:
    found = [schema.get("minimum"), *(s.get("minimum") for s in schema.get("anyOf", []))]
    return next((int(m) for m in found if m is not None), None)


def _maximum(schema: dict[str, Any]) -> int | None:
    found = [schema.get("maximum"), *(s.get("maximum") for s in schema.get("anyOf", []))]
    return next((int(m) for m in found if m is not None), None)


def _bad_texts(schema: dict[str, Any], *, names_a_row: bool) -> list[str]:
    """Values out of reach; for an id, also the largest one accepted: every engine's id column
    must hold it, so that naming a row no one has is a 404 there too."""
    minimum, maximum = _minimum(schema), _maximum(schema)
    edges = [str(minimum - 1)] if minimum is not None else []
    if names_a_row and maximum is not None:
        edges.append(str(maximum))
    return [str(TOO_BIG), str(TOO_SMALL), *NOT_ASCII, *edges]


def _integer_parameters(app: FastAPI) -> list[tuple[str, str, str, str, str]]:
    found = []
    for method, path, operation in _operations(app):
        for parameter in operation.get("parameters", []):
            if _is_integer(parameter["schema"]):
                names_a_row = parameter["name"].endswith("_id")
                for bad in _bad_texts(parameter["schema"], names_a_row=names_a_row):
                    found.append((method, path, parameter["in"], parameter["name"], bad))
    return found


# Root's own interview, started by `_examples`.
SESSION: dict[str, str] = {}


def _url(path: str, integer: str | None = None, value: str = "") -> str:
    values = {**PATH_VALUES, **SESSION, **({integer: value} if integer else {})}
    return path.format(**values)


@pytest.fixture
def root(signed_in: Callable[[str], TestClient]) -> TestClient:
    return signed_in("root")


def test_the_walk_finds_the_integers_of_paths_and_queries(team_app: FastAPI) -> None:
    names = {(path, name) for _m, path, _in, name, _bad in _integer_parameters(team_app)}
    assert ("/attempts/{attempt_id}/assessment", "attempt_id") in names
    assert ("/api/attempts", "limit") in names


def test_no_path_or_query_integer_out_of_reach_is_a_500(team_app: FastAPI, root: TestClient) -> None:
    for method, path, where, name, bad in _integer_parameters(team_app):
        if where == "path":
            response = root.request(method, _url(path, name, bad))
        else:
            response = root.request(method, _url(path), params={name: bad})
        assert response.status_code in REFUSED, (method, path, name, bad, response.status_code)


def _integer_spots(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Where a JSON document holds an integer (booleans are not)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield at
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _integer_spots(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _integer_spots(item, (*at, index))


def _schema_integer_names(
    schema: dict[str, Any], components: dict[str, Any], seen: frozenset[str]
) -> set[str]:
    """The property names the schema declares as integers, anywhere in the body."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return set() if name in seen else _schema_integer_names(components[name], components, seen | {name})
    names = set()
    for key, sub in schema.get("properties", {}).items():
        if _is_integer(sub) or _is_integer(sub.get("items", {})):
            names.add(key)
        names |= _schema_integer_names(sub, components, seen)
    for sub in [*schema.get("anyOf", []), schema.get("items", {}), schema.get("additionalProperties", {})]:
        if isinstance(sub, dict) and sub:
            names |= _schema_integer_names(sub, components, seen)
    return names


def _spoiled(document: Any, at: tuple[Any, ...], value: int) -> Any:
    spoiled = copy.deepcopy(document)
    target = spoiled
    for step in at[:-1]:
        target = target[step]
    target[at[-1]] = value
    return spoiled


def test_no_json_integer_out_of_reach_is_a_500_and_none_is_stored(
    team_app: FastAPI, root: TestClient
) -> None:
    examples = _examples(root)
    components = _full_schema(team_app)["components"]["schemas"]
    for (method, path), bodies in examples.items():
        for body in bodies:
            assert root.request(method, _url(path), json=body).status_code < 400, (method, path)
    before = root.get("/api/export.json").json()
    for method, path, operation in _operations(team_app):
        content = operation.get("requestBody", {}).get("content", {})
        if "application/json" not in content:
            continue
        declared = _schema_integer_names(content["application/json"]["schema"], components, frozenset())
        if not declared and (method, path) not in examples:
            continue  # a body with no integer in its schema has none to spoil
        assert (method, path) in examples, f"add an example body for {method} {path}"
        spots = [(body, spot) for body in examples[(method, path)] for spot in _integer_spots(body)]
        named = {next(s for s in reversed(spot) if isinstance(s, str)) for _body, spot in spots}
        assert declared <= named, (path, "the examples lack", declared - named)
        for body, spot in spots:
            for bad in (TOO_BIG, TOO_SMALL):
                response = root.request(method, _url(path), json=_spoiled(body, spot, bad))
                assert response.status_code in REFUSED, (method, path, spot, bad, response.status_code)
    assert root.get("/api/export.json").json()["attempts"] == before["attempts"]


def test_a_form_naming_an_attempt_in_other_digits_is_refused(root: TestClient) -> None:
    root.get(f"/practice?card={OWNER_CARD}")
    for bad in (*NOT_ASCII, str(TOO_BIG)):
        response = root.post(
            "/practice/rate",
            data={
                "card_id": OWNER_CARD,
                "tier": "middle",
                "rating": "good",
                "seconds": "3",
                "attempt_id": bad,
            },
        )
        assert response.status_code in REFUSED, (bad, response.status_code)


def test_a_content_length_in_other_digits_is_refused(team_app: FastAPI) -> None:
    """Sent as raw bytes (an HTTP client would re-encode the header): latin-1 0xB2 is "²"."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": f"/api/cards/{OWNER_CARD}/attempts",
        "query_string": b"",
        "headers": [(b"host", b"testserver"), (b"content-length", b"\xb2")],
        "client": ("192.0.2.10", 5000),
        "scheme": "http",
    }
    # On a thread of its own: the browser tests keep an event loop running on the main thread.
    thread = threading.Thread(target=anyio.run, args=(team_app, scope, receive, send))
    thread.start()
    thread.join()
    assert sent[0]["status"] == 413
