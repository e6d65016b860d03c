"""Users and attempts, with the single local user.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

from app.storage.base import UTCDateTime

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    users = op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("name", name=op.f("uq_users_name")),
    )
    op.create_table(
        "attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.String(length=120), nullable=False),
        sa.Column("tier", sa.String(length=16), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("follow_up", sa.Integer(), nullable=True),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("choices", sa.JSON(), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("points", sa.JSON(), nullable=False),
        sa.Column("rating", sa.String(length=8), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_attempts_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_attempts")),
    )
    op.create_index("ix_attempts_user_card_created", "attempts", ["user_id", "card_id", "created_at"])
    # The single local user every attempt belongs to until accounts exist.
    op.bulk_insert(users, [{"id": 1, "name": "local", "created_at": datetime.now(UTC)}])


def downgrade() -> None:
    op.drop_index("ix_attempts_user_card_created", table_name="attempts")
    op.drop_table("attempts")
    op.drop_table("users")
