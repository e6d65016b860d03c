"""Names are unique regardless of case, compatibility forms and look-alike letters: each person
gets the key of their name (app/accounts/names.py), unique.

People already there whose names share a key (an "Admin" made beside an "admin" before keys
existed) all stay, with their names and histories: the oldest keeps the plain key, each later one
gets the key with "#<id>" after it, which no name makes ("#" is outside the alphabet of names).
So nobody can be made like any of them from now on, and nobody loses their account.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

import logging
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# The app's own key, not a frozen copy: a later change to it comes with a migration of its own
# that computes every key again.
from app.accounts.names import KEY_LENGTH, name_key

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = logging.getLogger("alembic.runtime.migration")
users = sa.table("users", sa.column("id", sa.Integer), sa.column("name", sa.String), sa.column("name_key"))


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("name_key", sa.String(length=KEY_LENGTH), nullable=True))
    connection = op.get_bind()
    seen: dict[str, str] = {}
    # Every row read before any is written: no update runs while a cursor is still open on the table.
    rows = connection.execute(sa.select(users.c.id, users.c.name).order_by(users.c.id)).all()
    for user_id, name in rows:
        key = name_key(name)
        if key in seen:
            log.warning("the name %r looks like %r, which was there first: both stay", name, seen[key])
            key = f"{key}#{user_id}"
        else:
            seen[key] = name
        connection.execute(sa.update(users).where(users.c.id == user_id).values(name_key=key))
    with op.batch_alter_table("users") as batch:
        batch.alter_column("name_key", existing_type=sa.String(length=KEY_LENGTH), nullable=False)
        batch.create_unique_constraint(op.f("uq_users_name_key"), ["name_key"])


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_constraint(op.f("uq_users_name_key"), type_="unique")
        batch.drop_column("name_key")
