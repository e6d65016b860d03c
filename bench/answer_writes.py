"""Answer POSTs from 50 concurrent writers, as a ratio to a bare Starlette endpoint that inserts
the same body with sqlite3 in the same run. Targets: zero errors and every acknowledged answer in
the database afterwards; the throughput is reported (README, "Benchmarks", says what bounds it).

    .venv/bin/python -m bench.answer_writes [--seconds 30]
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

from bench._servers import migrated_data_dir, uvicorn_server

SCRIPT = Path(__file__).with_name("post_attempts.lua")
CARD = "tf-data-prefetch-last"
CONNECTIONS = 50
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


def run_wrk(url: str, seconds: int, token: str = "") -> tuple[float, set[int], int, str]:
    env = {**os.environ, "CSRF_TOKEN": token, "ATTEMPT_BODY": BODY}
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = migrated_data_dir(Path(folder))
        bare_db = Path(folder) / "bare.db"
        with uvicorn_server("app.factory:create_app", env, factory=True) as url:
            client = httpx.Client(base_url=url)
            client.get("/healthz")
            token = client.cookies["tiercards_csrf"]
            run_wrk(f"{url}/api/cards/{CARD}/attempts", 2, token)  # warm-up, not counted
            time.sleep(1)  # let the warm-up's last in-flight answers land before counting
            app_rps, acknowledged, refused, output = run_wrk(
                f"{url}/api/cards/{CARD}/attempts", args.seconds, token
            )
        with sqlite3.connect(Path(folder) / "tiercards.db") as db:
            stored = {row[0] for row in db.execute("SELECT id FROM attempts")}
        with uvicorn_server("bench.bare_writes:app", {"BARE_DB": str(bare_db)}) as bare_url:
            bare_rps, _, bare_refused, _ = run_wrk(bare_url + "/", args.seconds)
    missing = acknowledged - stored
    print(
        f"answers: {app_rps:.0f} POST/s over {args.seconds} s, acknowledged {len(acknowledged)}, "
        f"refused {refused}, acknowledged but missing from the database {len(missing)}"
    )
    print(f"bare sqlite3 insert endpoint: {bare_rps:.0f} POST/s (refused {bare_refused})")
    print(f"throughput ratio app/bare: {app_rps / bare_rps:.2f}; targets: 0 errors, none missing")
    if refused:
        print(output)
    ok = refused == 0 and not missing and acknowledged
    print("PASS" if ok else "FAIL")


if __name__ == "__main__":
    main()
