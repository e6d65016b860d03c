"""One import per person at a time, across replicas: a row per import that runs, with a lease a
killed server's import loses, and the replays it still owes.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.storage.base import UTCDateTime

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "import_guards",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("lease_until", UTCDateTime(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("owner", sa.String(length=32), nullable=False),
        sa.Column("replays", sa.JSON(), nullable=False),
        sa.Column("restored", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_import_guards_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_import_guards")),
    )


def downgrade() -> None:
    op.drop_table("import_guards")
