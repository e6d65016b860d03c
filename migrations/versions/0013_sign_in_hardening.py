"""Sign-in hardening: API tokens expire (those made before now get 90 days from this upgrade), and
every password check is recorded before it runs, so that throttling counts checks that run at the
same time.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04
"""

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import op

from app.storage.base import UTCDateTime

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen here: what a token made before expiry existed is given, whatever the default becomes.
EXISTING_TOKEN_DAYS = 90


def upgrade() -> None:
    with op.batch_alter_table("api_tokens") as batch:
        batch.add_column(sa.Column("expires_at", UTCDateTime(), nullable=True))
    tokens = sa.table("api_tokens", sa.column("expires_at", UTCDateTime()))
    expires = datetime.now(UTC) + timedelta(days=EXISTING_TOKEN_DAYS)
    op.execute(tokens.update().values(expires_at=expires))
    with op.batch_alter_table("api_tokens") as batch:
        batch.alter_column("expires_at", existing_type=UTCDateTime(), nullable=False)
    op.create_table(
        "sign_in_attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=True),
        sa.Column("device", sa.String(length=32), nullable=True),
        sa.Column("purpose", sa.String(length=16), nullable=False),
        sa.Column("outcome", sa.String(length=8), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sign_in_attempts")),
    )
    op.create_index("ix_sign_in_attempts_name_at", "sign_in_attempts", ["name", "at"])
    op.create_index("ix_sign_in_attempts_address_at", "sign_in_attempts", ["address", "at"])


def downgrade() -> None:
    op.drop_index("ix_sign_in_attempts_address_at", table_name="sign_in_attempts")
    op.drop_index("ix_sign_in_attempts_name_at", table_name="sign_in_attempts")
    op.drop_table("sign_in_attempts")
    with op.batch_alter_table("api_tokens") as batch:
        batch.drop_column("expires_at")
