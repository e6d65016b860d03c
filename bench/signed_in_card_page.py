"""Card page throughput for a signed-in person (AUTH_MODE=accounts, a session cookie from
POST /login) as a ratio to the same page in AUTH_MODE=single, both from `tiercards serve` in the
same run, 50 connections (wrk). Target: ratio >= 0.8.

    .venv/bin/python -m bench.signed_in_card_page [--seconds 10]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

from app.accounts.middleware import SESSION_COOKIE
from app.web.security import CSRF_COOKIE
from bench._servers import ROOT, WrkResult, migrated_data_dir, tiercards_serve, wrk
from bench._verdict import run, verdict

CARD_URL = "/cards/tf-data-prefetch-last?tier=principal"
NAME, PASSWORD = "bench", "signed-in bench pass phrase 42"
UNITS = {"B": 1, "KB": 2**10, "MB": 2**20, "GB": 2**30}


def add_user(env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "app.cli", "users", "add", NAME, "--role", "member", "--password-stdin"],
        cwd=ROOT,
        env={**os.environ, **env},
        input=PASSWORD + "\n",
        text=True,
        check=True,
        capture_output=True,
    )


def browser_cookies(url: str, sign_in: bool) -> str:
    """The Cookie header a browser would send: its CSRF cookie, and its session when signed in."""
    with httpx.Client(base_url=url) as client:
        client.get("/login" if sign_in else "/")
        if sign_in:
            response = client.post(
                "/login",
                data={"username": NAME, "password": PASSWORD, "next": "/"},
                headers={"X-CSRF-Token": client.cookies[CSRF_COOKIE]},
            )
            if response.status_code != 303:
                raise SystemExit(f"POST /login answered {response.status_code}: {response.text[:200]}")
        names = (CSRF_COOKIE, SESSION_COOKIE) if sign_in else (CSRF_COOKIE,)
        return "; ".join(f"{name}={client.cookies[name]}" for name in names)


def page(url: str, cookies: str) -> bytes:
    """The card page as these cookies get it; a 303 to /login would make the run meaningless."""
    response = httpx.get(url + CARD_URL, headers={"Cookie": cookies})
    if response.status_code != 200:
        raise SystemExit(f"{url}{CARD_URL} answered {response.status_code}, not the card page")
    return response.content


def bytes_per_request(result: WrkResult) -> float:
    # wrk counts a redirect as a success; the bytes it read per request show what it was sent.
    match = re.search(r"(\d+) requests in .*, ([\d.]+)(B|KB|MB|GB) read", result.output)
    assert match is not None, result.output
    requests, size, unit = match.groups()
    return float(size) * UNITS[unit] / int(requests)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as single_dir, tempfile.TemporaryDirectory() as accounts_dir:
        single_env = {**migrated_data_dir(Path(single_dir)), "AUTH_MODE": "single"}
        accounts_env = {**migrated_data_dir(Path(accounts_dir)), "AUTH_MODE": "accounts"}
        add_user(accounts_env)
        with tiercards_serve(single_env) as (single_url, _), tiercards_serve(accounts_env) as (team_url, _):
            single_cookies = browser_cookies(single_url, sign_in=False)
            team_cookies = browser_cookies(team_url, sign_in=True)
            body = page(team_url, team_cookies)
            page(single_url, single_cookies)
            single = {"Cookie": single_cookies}
            team = {"Cookie": team_cookies}
            wrk(team_url + CARD_URL, 2, headers=team)  # warm both
            wrk(single_url + CARD_URL, 2, headers=single)
            team_runs, single_runs = [], []
            for _ in range(3):  # interleaved, so background noise hits both alike
                team_runs.append(wrk(team_url + CARD_URL, args.seconds, headers=team))
                single_runs.append(wrk(single_url + CARD_URL, args.seconds, headers=single))
            page(team_url, team_cookies)  # still signed in at the end
    team_rps = sum(r.requests_per_second for r in team_runs) / len(team_runs)
    single_rps = sum(r.requests_per_second for r in single_runs) / len(single_runs)
    errors = sum(r.errors for r in team_runs + single_runs)
    same_page = min(map(bytes_per_request, team_runs)) >= 0.95 * max(map(bytes_per_request, single_runs))
    ratio = team_rps / single_rps
    p99 = max(r.p99_ms for r in team_runs)
    print(f"signed-in card page ({len(body)} bytes): {team_rps:.0f} req/s, p99 {p99:.1f} ms, errors {errors}")
    print(f"single-user card page:            {single_rps:.0f} req/s")
    print(f"throughput ratio signed-in/single: {ratio:.2f} (target >= 0.8)")
    if not same_page:
        print("signed-in responses were smaller than the page: not every request got the card")
    verdict(ratio >= 0.8 and errors == 0 and same_page)


if __name__ == "__main__":
    run(main)
