"""On PostgreSQL, recorded sound is kept out of the write-ahead log: `recording_audio` becomes an
unlogged table, so no copy of a recording outlives its row in the log, in archived logs or on a
standby (app/storage/database.py rewrites the table's files once rows are deleted). A server that
crashes empties it; the recordings still queued then fail with a sentence asking to record again.
SQLite keeps no such log past a checkpoint: nothing changes there.

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-07
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0029"
down_revision: str | None = "0028"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE recording_audio SET UNLOGGED")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE recording_audio SET LOGGED")
