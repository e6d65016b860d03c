"""PostgreSQL going away and coming back under a running app: while it is down, pages and the API
say so with a 503 and Retry-After (never a 500), and once it is back the same app serves again,
without a restart of its own."""

import time
from pathlib import Path

import httpx
import pytest

from tests.factories import OWNER_CARD
from tests.helpers.clients import csrf_client
from tests.helpers.payloads import attempt_payload
from tests.servers import running_server
from tests.services import database_on, postgres, postgres_server

pytestmark = pytest.mark.load


def test_a_restarted_database_is_a_503_while_down_and_served_again_after(tmp_path: Path) -> None:
    folder = tmp_path / "postgres"
    with postgres_server(folder) as admin_url:
        env = {"DATABASE_URL": database_on(admin_url, "restart_test")}
        with running_server(tmp_path / "data", "--no-worker", env=env) as url:
            client = csrf_client(url)
            answer = f"/api/cards/{OWNER_CARD}/attempts"
            assert client.post(answer, json=attempt_payload(text="before")).status_code == 201
            postgres("stop", folder)
            for path in ("/practice", "/progress", f"/api/attempts?card_id={OWNER_CARD}"):
                down = client.get(path)
                assert down.status_code == 503, (path, down.status_code)
                assert down.headers["retry-after"] == "5" and "database" in down.text
            refused = client.post(answer, json=attempt_payload(text="while down"))
            assert refused.status_code == 503
            postgres("start", folder, str(httpx.URL(admin_url.replace("+psycopg", "")).port))
            deadline = time.monotonic() + 15
            while client.get("/progress").status_code != 200:
                assert time.monotonic() < deadline, "the app did not recover"
                time.sleep(0.2)
            assert client.post(answer, json=attempt_payload(text="after")).status_code == 201
            texts = [a["text"] for a in client.get("/api/attempts", params={"card_id": OWNER_CARD}).json()]
            assert texts == ["after", "before"]
