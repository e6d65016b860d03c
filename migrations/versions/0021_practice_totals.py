"""Practice counted as it is written: per person and UTC day, per quiz statement, and the reviews
rated again per schedule, so pages stop reading every answer ever given.

The counts that need the deck (answers within a card's time budget, quiz statements judged
wrong) are left to `tiercards db rebuild-aggregates`, which every command that upgrades runs after
this revision (app/cli/db.py); the review log's again counts are filled here.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "practice_days",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("answers", sa.Integer(), nullable=False),
        sa.Column("rated_alone", sa.Integer(), nullable=False),
        sa.Column("reviews", sa.Integer(), nullable=False),
        sa.Column("timed", sa.Integer(), nullable=False),
        sa.Column("in_time", sa.Integer(), nullable=False),
        sa.Column("quizzes", sa.Integer(), nullable=False),
        sa.Column("quiz_score", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_practice_days_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", "day", name=op.f("pk_practice_days")),
    )
    op.create_table(
        "quiz_tallies",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.String(length=120), nullable=False),
        sa.Column("item_id", sa.String(length=200), nullable=False),
        sa.Column("seen", sa.Integer(), nullable=False),
        sa.Column("missed", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_quiz_tallies_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", "card_id", "item_id", name=op.f("pk_quiz_tallies")),
    )
    with op.batch_alter_table("review_states") as batch:
        batch.add_column(sa.Column("again", sa.Integer(), server_default="0", nullable=False))
    op.execute(
        "UPDATE review_states SET again = (SELECT count(*) FROM review_logs"
        " WHERE review_logs.user_id = review_states.user_id AND review_logs.card_id = review_states.card_id"
        " AND review_logs.tier = review_states.tier AND review_logs.rating = 1)"
    )


def downgrade() -> None:
    with op.batch_alter_table("review_states") as batch:
        batch.drop_column("again")
    op.drop_table("quiz_tallies")
    op.drop_table("practice_days")
