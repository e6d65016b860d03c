"""A team practising, for the scale-out benchmarks: each simulated person (named to the app by a
proxy header, AUTH_MODE=proxy) browses the library and cards, answers, takes the quiz, opens
/practice and /progress, and now and then runs a small live demo, with a second or so between clicks.

BENCH_THINK="20,60" makes people think that many seconds between clicks instead, as people
practising do, starting at a random moment within one think time rather than all at once; with
BENCH_LEADS=N, N of them are leads (the proxy's group "leads", GROUP_ROLES=leads=lead on the
server) who open /team between their own thinking.

Every answer the app acknowledged (201) is written to BENCH_ACKS (one attempt id per line), so the
benchmark can check afterwards that each one is in the database.
"""

import os
import random
import threading
from typing import Any

from locust import FastHttpUser, between, events, task

from bench.answer_writes import ANSWER, CARD

CARDS = ("tf-data-prefetch-last", "tf-data-parallel-map-interleave", "tf-data-cache-shuffle-order")
QUIZ = {"tier": "middle", "kind": "quiz", "choices": [], "seconds": 12.0}
DEMO = {"preset": "placement", "card_id": CARD, "params": {"steps": 6, "input_ms": 3, "compute_ms": 3}}
_acknowledged: list[int] = []
_lock = threading.Lock()
_people = iter(range(1, 1_000_000))
THINK = tuple(float(s) for s in os.environ["BENCH_THINK"].split(",")) if "BENCH_THINK" in os.environ else None
LEADS = int(os.environ.get("BENCH_LEADS", "0"))


@events.quitting.add_listener
def _write_acknowledged(**_kwargs: Any) -> None:
    path = os.environ.get("BENCH_ACKS")
    if path:
        with open(path, "w") as file:
            file.writelines(f"{attempt_id}\n" for attempt_id in _acknowledged)


class Teammate(FastHttpUser):
    abstract = True
    wait_time = between(*THINK) if THINK else between(0.5, 2.0)
    groups = ""

    def on_start(self) -> None:
        with _lock:
            self.name = f"person{next(_people)}"
        self.client.get("/healthz", name="/healthz")
        token = next((c.value for c in self.client.cookiejar if c.name == "tiercards_csrf"), "")
        self.headers = {"X-CSRF-Token": token, "Remote-User": self.name, "Remote-Groups": self.groups}
        if THINK:
            self.wait()

    def _get(self, path: str, name: str) -> None:
        self.client.get(path, headers=self.headers, name=name)

    def _post(self, path: str, body: dict[str, Any], name: str, expect: int) -> Any:
        with self.client.post(path, json=body, headers=self.headers, name=name, catch_response=True) as r:
            if r.status_code != expect:
                r.failure(f"status {r.status_code}")
                return None
            return r.json()


class Person(Teammate):
    @task(2)
    def library(self) -> None:
        self._get("/", "GET library")

    @task(4)
    def card(self) -> None:
        self._get(f"/cards/{random.choice(CARDS)}?tier=middle", "GET card page")

    @task(4)
    def answer(self) -> None:
        stored = self._post(f"/api/cards/{CARD}/attempts", ANSWER, "POST answer", 201)
        if stored is not None:
            with _lock:
                _acknowledged.append(int(stored["id"]))

    @task(2)
    def quiz(self) -> None:
        self._get(f"/cards/{CARD}/quiz?tier=middle", "GET quiz")
        stored = self._post(f"/api/cards/{CARD}/attempts", QUIZ, "POST quiz", 201)
        if stored is not None:
            with _lock:
                _acknowledged.append(int(stored["id"]))

    @task(2)
    def practice(self) -> None:
        self._get("/practice", "GET /practice")

    @task(1)
    def progress(self) -> None:
        self._get("/progress", "GET /progress")

    @task(1)
    def history(self) -> None:
        self._get(f"/api/attempts?card_id={CARD}&limit=5", "GET recent answers")

    # About one person in twenty starts a demo in a minute: "now and then".
    @task(1)
    def demo(self) -> None:
        if random.random() < 0.05:
            self._post("/api/demos", DEMO, "POST demo", 202)


class Lead(Teammate):
    """A lead looking at the team between their own thinking; only with BENCH_LEADS."""

    abstract = LEADS == 0
    fixed_count = LEADS
    groups = "leads"

    @task
    def team(self) -> None:
        self._get("/team", "GET /team")
