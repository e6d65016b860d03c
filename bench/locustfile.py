"""What one person does, for the load and soak benchmarks: answer, read their recent answers,
open a card, look at /practice and /progress. Against the bare baseline
only the answer and the read exist (bench/bare_writes.py); the other tasks are the app's alone."""

import os

from locust import FastHttpUser, between, task

from bench.answer_writes import ANSWER, CARD

BARE = os.environ.get("BENCH_TARGET") == "bare"


class Person(FastHttpUser):
    wait_time = between(0, 0.05)

    def on_start(self) -> None:
        self.client.get("/healthz", name="/healthz")
        token = next((c.value for c in self.client.cookiejar if c.name == "tiercards_csrf"), "")
        self.headers = {"X-CSRF-Token": token or ""}

    @task(3)
    def answer(self) -> None:
        path = "/" if BARE else f"/api/cards/{CARD}/attempts"
        with self.client.post(
            path, json=ANSWER, headers=self.headers, name="POST answer", catch_response=True
        ) as r:
            if r.status_code != 201:
                r.failure(f"status {r.status_code}")

    @task(3)
    def recent(self) -> None:
        path = "/" if BARE else f"/api/attempts?card_id={CARD}&limit=5"
        self.client.get(path, name="GET recent answers")

    @task(2)
    def card(self) -> None:
        if not BARE:
            self.client.get(f"/cards/{CARD}?tier=middle", name="GET card page")

    @task(1)
    def practice(self) -> None:
        if not BARE:
            self.client.get("/practice", name="GET /practice")

    @task(1)
    def progress(self) -> None:
        if not BARE:
            self.client.get("/progress", name="GET /progress")
