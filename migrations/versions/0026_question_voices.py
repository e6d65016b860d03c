"""The interviewer's questions said aloud, once per text and voice, for every replica to serve.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.storage.base import UTCDateTime

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "question_voices",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("voice", sa.String(length=32), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("audio", sa.LargeBinary(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("finished_at", UTCDateTime(), nullable=True),
        sa.CheckConstraint(
            "status IN ('queued', 'done', 'failed')", name=op.f("ck_question_voices_status_known")
        ),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_question_voices")),
    )


def downgrade() -> None:
    op.drop_table("question_voices")
