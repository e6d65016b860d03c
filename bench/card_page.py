"""Card page throughput under 50 concurrent connections, as a ratio to a bare Starlette endpoint
serving the same bytes in the same run (targets: ratio >= 0.8, p99 < 20 ms).

    .venv/bin/python -m bench.card_page [--seconds 10] [--profile]

With --profile, py-spy samples the app's server through one more run and prints its top costs.
"""

import argparse
import tempfile
from pathlib import Path

import httpx

from bench._profile import profiled
from bench._servers import migrated_data_dir, uvicorn_process, uvicorn_server, wrk
from bench._verdict import run, verdict

CARD_URL = "/cards/tf-data-prefetch-last?tier=principal"
MIN_RATIO = 0.8
MAX_P99_MS = 20.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--profile", action="store_true", help="print where the app's CPU goes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = migrated_data_dir(Path(folder))
        with uvicorn_process("app.factory:create_app", env, factory=True) as (app_url, pid):
            body = httpx.get(app_url + CARD_URL).content
            page_file = Path(folder) / "page.html"
            page_file.write_bytes(body)
            with uvicorn_server("bench.bare_page:app", {"BARE_PAGE_FILE": str(page_file)}) as bare_url:
                wrk(app_url + CARD_URL, 2)  # warm both
                wrk(bare_url + CARD_URL, 2)
                app_runs, bare_runs = [], []
                for _ in range(3):  # interleaved, so background noise hits both alike
                    app_runs.append(wrk(app_url + CARD_URL, args.seconds))
                    bare_runs.append(wrk(bare_url + CARD_URL, args.seconds))
                if args.profile:
                    with profiled(pid, Path(folder) / "profile.txt", args.seconds):
                        wrk(app_url + CARD_URL, args.seconds)
    app_rps = sum(r.requests_per_second for r in app_runs) / len(app_runs)
    bare_rps = sum(r.requests_per_second for r in bare_runs) / len(bare_runs)
    p99 = max(r.p99_ms for r in app_runs)
    errors = sum(r.errors for r in app_runs)
    ratio = app_rps / bare_rps
    print(f"card page ({len(body)} bytes): {app_rps:.0f} req/s, p99 {p99:.1f} ms, errors {errors}")
    print(f"bare Starlette, same bytes:   {bare_rps:.0f} req/s")
    print(
        f"throughput ratio card/bare: {ratio:.2f} (target >= {MIN_RATIO}); p99 {p99:.1f} ms (target < {MAX_P99_MS:.0f} ms)"
    )
    verdict(ratio >= MIN_RATIO and p99 < MAX_P99_MS and errors == 0)


if __name__ == "__main__":
    run(main)
