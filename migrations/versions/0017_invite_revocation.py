"""Invites an admin revoked, and the key their links are derived from, so that the admin page can
offer a pending invite's link again.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.storage.base import UTCDateTime

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Both empty on the invites already there: their links cannot be shown again, and none was revoked.
    with op.batch_alter_table("invites") as batch:
        batch.add_column(sa.Column("revoked_at", UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("link_key", sa.String(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("invites") as batch:
        batch.drop_column("link_key")
        batch.drop_column("revoked_at")
