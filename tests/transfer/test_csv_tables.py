"""The CSV export: each table's header and every row come from one list of columns."""

import csv
import io
from datetime import timedelta

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.storage.base import utcnow
from app.transfer import csv_tables
from tests.factories import DECK
from tests.helpers.practice import post_attempt, review


@pytest.mark.parametrize("table", ["attempts", "schedule", "reviews"])
def test_every_row_has_a_cell_under_each_declared_column(
    app: FastAPI, client: TestClient, table: str
) -> None:
    post_attempt(client, text="=SUM(A1)", rating="good")
    review(app, "hard", utcnow() - timedelta(days=2), card_id="a-retired-card")
    response = client.get("/api/export.csv", params={"table": table})
    assert response.status_code == 200, response.text
    header, *rows = list(csv.reader(io.StringIO(response.text)))
    declared = [name for name, _ in csv_tables.columns(table, now=utcnow(), cards=DECK)]
    assert header == declared
    assert rows and all(len(row) == len(header) for row in rows)
