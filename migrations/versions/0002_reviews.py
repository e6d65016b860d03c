"""Spaced repetition: per-person practice settings, FSRS review states and review logs.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.storage.base import UTCDateTime

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A table of its own rather than columns on `users`: no table rebuild of `users` on SQLite
    # (which attempts reference), and a person without a row simply has the defaults.
    op.create_table(
        "user_settings",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("target_tier", sa.String(length=16), server_default="middle", nullable=False),
        sa.Column("desired_retention", sa.Float(), server_default="0.9", nullable=False),
        sa.Column("new_per_day", sa.Integer(), server_default="10", nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.CheckConstraint(
            "desired_retention >= 0.7 AND desired_retention <= 0.99",
            name=op.f("ck_user_settings_retention_range"),
        ),
        sa.CheckConstraint(
            "new_per_day >= 0 AND new_per_day <= 100", name=op.f("ck_user_settings_new_per_day_range")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_user_settings_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_user_settings")),
    )
    op.create_table(
        "review_states",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.String(length=120), nullable=False),
        sa.Column("tier", sa.String(length=16), nullable=False),
        sa.Column("state", sa.Integer(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("stability", sa.Float(), nullable=True),
        sa.Column("difficulty", sa.Float(), nullable=True),
        sa.Column("due", UTCDateTime(), nullable=False),
        sa.Column("last_review", UTCDateTime(), nullable=True),
        sa.Column("first_review", UTCDateTime(), nullable=False),
        sa.Column("reps", sa.Integer(), nullable=False),
        sa.Column("lapses", sa.Integer(), nullable=False),
        sa.CheckConstraint("state BETWEEN 1 AND 3", name=op.f("ck_review_states_state_known")),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_review_states_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_review_states")),
        sa.UniqueConstraint("user_id", "card_id", "tier", name=op.f("uq_review_states_user_id")),
    )
    op.create_index("ix_review_states_user_due", "review_states", ["user_id", "due"])
    op.create_table(
        "review_logs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.String(length=120), nullable=False),
        sa.Column("tier", sa.String(length=16), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("review_datetime", UTCDateTime(), nullable=False),
        sa.Column("review_duration_ms", sa.Integer(), nullable=True),
        sa.Column("attempt_id", sa.Integer(), nullable=True),
        sa.CheckConstraint("rating BETWEEN 1 AND 4", name=op.f("ck_review_logs_rating_range")),
        sa.ForeignKeyConstraint(
            ["attempt_id"],
            ["attempts.id"],
            name=op.f("fk_review_logs_attempt_id_attempts"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_review_logs_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_review_logs")),
        sa.UniqueConstraint("attempt_id", name=op.f("uq_review_logs_attempt_id")),
    )
    op.create_index("ix_review_logs_user_datetime", "review_logs", ["user_id", "review_datetime"])
    op.create_index(
        "ix_review_logs_user_card_tier", "review_logs", ["user_id", "card_id", "tier", "review_datetime"]
    )


def downgrade() -> None:
    op.drop_index("ix_review_logs_user_card_tier", table_name="review_logs")
    op.drop_index("ix_review_logs_user_datetime", table_name="review_logs")
    op.drop_table("review_logs")
    op.drop_index("ix_review_states_user_due", table_name="review_states")
    op.drop_table("review_states")
    op.drop_table("user_settings")
