"""/metrics as Prometheus scrapes it, in tests."""

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.helpers.demos import wait_for

# The figures read from the parts every replica shares, each within the probe's few seconds.
SHARED = (
    "tiercards_demo_runs",
    "tiercards_demo_queue_depth",
    "tiercards_recordings",
    "tiercards_recording_queue_depth",
)


def scrape(client: httpx.Client) -> httpx.Response:
    """A scrape that has every shared figure. A read slower than the probe's limit (a busy machine,
    a database's first connection) is left out of that scrape and answers the next one."""

    def complete() -> httpx.Response | None:
        response = client.get("/metrics")
        assert response.status_code == 200
        names = {family.name for family in text_string_to_metric_families(response.text)}
        return response if set(SHARED) <= names else None

    response: httpx.Response = wait_for(complete, 60, 0.2, "every shared figure on /metrics")
    return response
