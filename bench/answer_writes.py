"""Answer POSTs from 50 concurrent writers, as a ratio to a bare Starlette endpoint that inserts
the same body with sqlite3 in the same run: one person (single mode); then a team (people named by
the proxy header) as 50 people each on a card and depth of their own, and as one person on one
card from all 50 connections. Targets: zero errors and every acknowledged answer in the database
afterwards; the 50 people at 0.10x the bare endpoint or more (0.25x the aim beyond), at no more
than 5 ms of the server's CPU an answer; the one person within 2x of them (docs/benchmarks.md,
"Benchmarks", says what bounds the throughput).

    .venv/bin/python -m bench.answer_writes [--seconds 30] [--profile]

With --profile, py-spy samples the team's server through one more run of the 50 people and
prints its top costs.
"""

import argparse
import json
import os
import re
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path

import httpx
import psutil

from app.content.catalogue import load
from bench._profile import profiled
from bench._servers import ROOT, migrated_data_dir, uvicorn_process, uvicorn_server
from bench._verdict import run, verdict

SCRIPT = Path(__file__).with_name("post_attempts.lua")
CARD = "tf-data-prefetch-last"
CONNECTIONS = 50
MIN_RATIO = 0.10
MAX_CPU_S = 0.005
# One answer, as the load benchmarks' simulated people post it too (bench/locustfile.py).
ANSWER = {
    "tier": "middle",
    "kind": "solid",
    "text": "prefetch overlaps input with compute " * 8,
    "seconds": 41.5,
    "rating": "good",
    "points": [0, 1, 4],
}
BODY = json.dumps(ANSWER)


def writers(people: int, schedules: int) -> str:
    """WRITERS for bench/post_attempts.lua: `people` people named writer00…, each answering one of
    `schedules` (card, depth) pairs, a different one each while there are enough."""
    deck = sorted(load(ROOT / "content").cards)
    pairs = [(card, tier) for tier in ("middle", "senior", "junior") for card in deck][:schedules]
    lines = []
    for n in range(people):
        card, tier = pairs[n % len(pairs)]
        lines.append(f"writer{n:02d}\t/api/cards/{card}/attempts\t{json.dumps({**ANSWER, 'tier': tier})}")
    return "\n".join(lines)


def run_wrk(url: str, seconds: int, token: str = "", team: str = "") -> tuple[float, set[int], int, str]:
    env = {**os.environ, "CSRF_TOKEN": token, "ATTEMPT_BODY": BODY, "WRITERS": team, "THREADS": "2"}
    output = subprocess.run(
        ["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{seconds}s", "--latency", "-s", str(SCRIPT), url],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
    acknowledged = {int(i) for line in re.findall(r"^ids (.*)$", output, re.M) for i in line.split(",") if i}
    refused = int(re.search(r"refused (\d+)", output).group(1))  # type: ignore[union-attr]
    if match := re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output):
        refused += sum(int(g) for g in match.groups())
    return rps, acknowledged, refused, output


def measured(
    url: str, seconds: int, team: str = "", server: psutil.Process | None = None
) -> tuple[float, set[int], int, str, float]:
    """Answers POSTed to `url` for `seconds` after a short warm-up not counted (which, with a
    team, also creates its people); with `server`, the last figure is the CPU time that process
    spent per acknowledged answer (else 0)."""
    client = httpx.Client(base_url=url)
    client.get("/healthz")
    token = client.cookies["tiercards_csrf"]
    run_wrk(f"{url}/api/cards/{CARD}/attempts", 2, token, team)
    time.sleep(1)  # let the warm-up's last in-flight answers land before counting
    before = _cpu_seconds(server)
    result = run_wrk(f"{url}/api/cards/{CARD}/attempts", seconds, token, team)
    return (*result, (_cpu_seconds(server) - before) / max(len(result[1]), 1))


def _cpu_seconds(process: psutil.Process | None) -> float:
    return sum(process.cpu_times()[:2]) if process is not None else 0.0


def stored_ids(folder: Path) -> set[int]:
    with sqlite3.connect(folder / "tiercards.db") as db:
        return {row[0] for row in db.execute("SELECT id FROM attempts")}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--profile", action="store_true", help="print where the app's CPU goes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        solo, team = Path(folder) / "solo", Path(folder) / "team"
        solo.mkdir()
        team.mkdir()
        with uvicorn_server("app.factory:create_app", migrated_data_dir(solo), factory=True) as url:
            app_rps, acknowledged, refused, output, _ = measured(url, args.seconds)
        # A team: people named by the proxy header, so fifty writers are fifty people.
        team_env = {**migrated_data_dir(team), "AUTH_MODE": "proxy", "TRUSTED_PROXIES": "127.0.0.1"}
        with uvicorn_process("app.factory:create_app", team_env, factory=True) as (url, pid):
            many = measured(url, args.seconds, writers(CONNECTIONS, CONNECTIONS), server=psutil.Process(pid))
            one = measured(url, args.seconds, writers(1, 1))
            if args.profile:
                with profiled(pid, Path(folder) / "profile.txt", args.seconds):
                    measured(url, args.seconds, writers(CONNECTIONS, CONNECTIONS))
        with uvicorn_server("bench.bare_writes:app", {"BARE_DB": str(Path(folder) / "bare.db")}) as bare_url:
            bare_rps, _, bare_refused, _ = run_wrk(bare_url + "/", args.seconds)
        missing = acknowledged - stored_ids(solo)
        team_missing = (many[1] | one[1]) - stored_ids(team)
    print(
        f"answers: {app_rps:.0f} POST/s over {args.seconds} s, acknowledged {len(acknowledged)}, "
        f"refused {refused}, acknowledged but missing from the database {len(missing)}"
    )
    for label, (rps, acked, team_refused, *_) in (
        (f"{CONNECTIONS} people, each on a card and depth of their own", many),
        ("1 person on 1 card, all connections", one),
    ):
        print(f"team, {label}: {rps:.0f} POST/s, acknowledged {len(acked)}, refused {team_refused}")
    print(
        f"CPU per answer, {CONNECTIONS} people: {1000 * many[4]:.1f} ms (the server process, user + system)"
    )
    print(f"bare sqlite3 insert endpoint: {bare_rps:.0f} POST/s (refused {bare_refused})")
    print(f"throughput ratio app/bare: {app_rps / bare_rps:.2f}")
    print(f"throughput ratio {CONNECTIONS} people/bare: {many[0] / bare_rps:.2f}")
    print(f"throughput ratio 1 person/{CONNECTIONS} people: {one[0] / many[0]:.2f}")
    for result in (output, many[3], one[3]):
        if "refused 0" not in result:
            print(result)
    errors = refused + many[2] + one[2]
    verdict(errors == 0, "0 errors")
    verdict(not missing and not team_missing and bool(acknowledged), "every acknowledged answer stored")
    verdict(many[0] >= MIN_RATIO * bare_rps, f"{CONNECTIONS} people >= {MIN_RATIO}x the bare endpoint")
    verdict(many[4] <= MAX_CPU_S, f"CPU per answer <= {1000 * MAX_CPU_S:.0f} ms")
    verdict(one[0] * 2 >= many[0], f"1 person on 1 card within 2x of {CONNECTIONS} people")


if __name__ == "__main__":
    run(main)
