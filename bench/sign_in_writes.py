"""Signing in beside everyone else's writes, and a burst of wrong passwords, against
`tiercards serve` (AUTH_MODE=accounts) in the same run.

1. SQLite: the latency of another person's answers while one member signs in over and over, as a
   ratio to the same answers with nobody signing in. Target: ratio <= 2 (argon2 runs outside the
   write turn; when it ran inside, one member signing in took everyone's writes from 7 ms to 409 ms).
2. PostgreSQL: 40 wrong passwords for one name sent at once from one address; how many were
   checked (argon2 ran), against the limit. Target: no more than the limit.

    .venv/bin/python -m bench.sign_in_writes [--seconds 15]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import closing
from pathlib import Path

import httpx
from bs4 import BeautifulSoup
from sqlalchemy import create_engine, func, select

from app.accounts.models import AuditEvent
from app.accounts.throttle import MAX_FAILURES_PER_NAME_AND_ADDRESS
from app.web.security import CSRF_COOKIE
from bench._servers import ROOT, free_port, tiercards_serve
from bench._topology import postgres
from bench._verdict import run, verdict
from bench.answer_writes import ANSWER, CARD
from tests.servers import wrong_password_burst

PEOPLE = {"writer": "writer bench pass phrase 1", "signer": "signer bench pass phrase 2"}
BURST = 40


def prepare(env: dict[str, str]) -> None:
    """The database migrated, with the two people of the run."""

    def cli(*args: str, stdin: str = "") -> None:
        subprocess.run(
            [sys.executable, "-m", "app.cli", *args],
            cwd=ROOT,
            env={**os.environ, **env},
            input=stdin,
            text=True,
            check=True,
            capture_output=True,
        )

    cli("db", "upgrade")
    for name, password in PEOPLE.items():
        cli("users", "add", name, "--password-stdin", stdin=password + "\n")


def signed_in(url: str, name: str) -> httpx.Client:
    client = httpx.Client(base_url=url, timeout=60)
    client.get("/login")
    client.headers["X-CSRF-Token"] = client.cookies[CSRF_COOKIE]
    response = client.post("/login", data={"username": name, "password": PEOPLE[name]})
    if response.status_code != 303:
        raise SystemExit(f"POST /login for {name} answered {response.status_code}")
    # Signed in, the CSRF token is the session's own: the one the person's pages now carry.
    meta = BeautifulSoup(client.get("/account").text, "html.parser").find(
        "meta", attrs={"name": "csrf-token"}
    )
    client.headers["X-CSRF-Token"] = str(meta["content"]) if meta else ""
    return client


def answer_latencies(writer: httpx.Client, seconds: float) -> list[float]:
    """One person's answers, one after another, for `seconds`: each one's latency (ms)."""
    latencies = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        response = writer.post(f"/api/cards/{CARD}/attempts", json=ANSWER)
        if response.status_code != 201:
            raise SystemExit(f"an answer was refused: {response.status_code} {response.text[:200]}")
        latencies.append(response.elapsed.total_seconds() * 1000)
    return latencies


def sign_in_over_and_over(url: str, stop: threading.Event, done: list[int]) -> None:
    while not stop.is_set():
        signed_in(url, "signer").close()
        done.append(1)


def writes_beside_sign_ins(seconds: float) -> tuple[list[float], list[float], int]:
    """Answer latencies with nobody signing in, then with one member signing in over and over
    (ms), and how many sign-ins that was."""
    with tempfile.TemporaryDirectory() as folder:
        env = {
            "DATA_DIR": folder,
            "SECRET_KEY": "bench-" + "k" * 40,
            "AUTH_MODE": "accounts",
            # One address signs in all run long: the per-address limit is not what is measured.
            "SIGN_INS_PER_ADDRESS": "1000000",
        }
        prepare(env)
        with tiercards_serve(env) as (url, _), closing(signed_in(url, "writer")) as writer:
            answer_latencies(writer, 1)  # warm-up, not counted
            alone = answer_latencies(writer, seconds)
            stop, done = threading.Event(), []
            signer = threading.Thread(target=sign_in_over_and_over, args=(url, stop, done))
            signer.start()
            try:
                beside = answer_latencies(writer, seconds)
            finally:
                stop.set()
                signer.join()
    return alone, beside, len(done)


def burst_on_postgres() -> tuple[int, int]:
    """How many of BURST wrong passwords sent at once were checked, and how many refused 429."""
    with tempfile.TemporaryDirectory() as folder:
        admin_url = postgres("start", Path(folder) / "postgres", str(free_port()))
        try:
            env = {
                "DATA_DIR": str(Path(folder) / "data"),
                "SECRET_KEY": "bench-" + "k" * 40,
                "AUTH_MODE": "accounts",
                "DATABASE_URL": admin_url,
            }
            prepare(env)
            with tiercards_serve(env) as (url, _):
                statuses = wrong_password_burst(url, "writer", BURST)
            engine = create_engine(admin_url)
            with engine.connect() as connection:
                query = (
                    select(func.count()).select_from(AuditEvent).where(AuditEvent.kind == "sign_in_failed")
                )
                checked = int(connection.scalar(query) or 0)
            engine.dispose()
        finally:
            postgres("destroy", Path(folder) / "postgres")
    return checked, statuses.count(429)


def p90(latencies: list[float]) -> float:
    return statistics.quantiles(latencies, n=10)[-1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=15)
    args = parser.parse_args()
    alone, beside, sign_ins = writes_beside_sign_ins(args.seconds)
    ratio = statistics.median(beside) / statistics.median(alone)
    print(
        f"answer latency over {args.seconds:.0f} s (SQLite), median / p90: "
        f"{statistics.median(alone):.1f} / {p90(alone):.1f} ms with nobody signing in, "
        f"{statistics.median(beside):.1f} / {p90(beside):.1f} ms while one member signed in {sign_ins} times"
    )
    print(f"median latency ratio beside sign-ins / alone: {ratio:.2f}; target <= 2")
    checked, throttled = burst_on_postgres()
    limit = MAX_FAILURES_PER_NAME_AND_ADDRESS
    print(
        f"burst on PostgreSQL: {checked} of {BURST} concurrent wrong passwords checked, "
        f"{throttled} refused with 429 (limit {limit}); checked/limit {checked / limit:.2f}, target <= 1"
    )
    verdict(ratio <= 2 and checked <= limit)


if __name__ == "__main__":
    run(main)
