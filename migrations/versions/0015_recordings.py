"""Answers given aloud: recordings, their audio until transcribed, and how an answer was said.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.storage.base import UTCDateTime

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "recordings",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.String(length=120), nullable=False),
        sa.Column("tier", sa.String(length=16), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("follow_up", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("lane", sa.String(length=16), nullable=False),
        sa.Column("declared_seconds", sa.Float(), nullable=False),
        sa.Column("duration_s", sa.Float(), nullable=True),
        sa.Column("transcript", sa.Text(), nullable=True),
        sa.Column("words", sa.JSON(), nullable=True),
        sa.Column("delivery", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("worker", sa.String(length=255), nullable=True),
        sa.Column("model", sa.String(length=120), nullable=True),
        sa.Column("real_time_factor", sa.Float(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("started_at", UTCDateTime(), nullable=True),
        sa.Column("finished_at", UTCDateTime(), nullable=True),
        sa.Column("keep_audio_until", UTCDateTime(), nullable=True),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'done', 'failed')", name=op.f("ck_recordings_status_known")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_recordings_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_recordings")),
    )
    op.create_index("ix_recordings_user_created", "recordings", ["user_id", "created_at"])
    op.create_index("ix_recordings_status_created", "recordings", ["status", "created_at"])
    op.create_index("ix_recordings_status_finished", "recordings", ["status", "finished_at"])
    op.create_table(
        "recording_audio",
        sa.Column("recording_id", sa.String(length=32), nullable=False),
        sa.Column("content_type", sa.String(length=64), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["recording_id"],
            ["recordings.id"],
            name=op.f("fk_recording_audio_recording_id_recordings"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("recording_id", name=op.f("pk_recording_audio")),
    )
    with op.batch_alter_table("attempts") as batch:
        batch.add_column(sa.Column("recording_id", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("words_per_minute", sa.Float(), nullable=True))
        batch.add_column(sa.Column("filler_count", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("long_pauses", sa.Integer(), nullable=True))
        batch.create_unique_constraint(op.f("uq_attempts_recording_id"), ["recording_id"])
        batch.create_foreign_key(
            op.f("fk_attempts_recording_id_recordings"),
            "recordings",
            ["recording_id"],
            ["id"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        batch.drop_constraint(op.f("fk_attempts_recording_id_recordings"), type_="foreignkey")
        batch.drop_constraint(op.f("uq_attempts_recording_id"), type_="unique")
        batch.drop_column("long_pauses")
        batch.drop_column("filler_count")
        batch.drop_column("words_per_minute")
        batch.drop_column("recording_id")
    op.drop_table("recording_audio")
    op.drop_index("ix_recordings_status_finished", table_name="recordings")
    op.drop_index("ix_recordings_status_created", table_name="recordings")
    op.drop_index("ix_recordings_user_created", table_name="recordings")
    op.drop_table("recordings")
