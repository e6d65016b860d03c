"""Postgres: move the users id sequence past the local user that 0001 inserted with an explicit
id, so the next person gets the next id instead of a clash. (SQLite needs nothing.)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("SELECT setval(pg_get_serial_sequence('users', 'id'), (SELECT max(id) FROM users))")


def downgrade() -> None:
    pass  # the sequence staying ahead of the ids harms nothing
