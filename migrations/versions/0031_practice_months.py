"""practice_months: each person's days with practice, a row a month and a bit a day, kept by the
database from practice_days, so /team reads a member's streak from a dozen rows a year instead of
a row a day.

A day's bit is set from its practice_days row whenever that row is written, changed or deleted
(set when it holds an answer or a rating given alone, cleared otherwise). Each change touches only
its own day's bit, so the order rows are written in, or a statement writing many, cannot matter.

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0031"
down_revision: str | None = "0030"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PRACTISED = "{row}.answers + {row}.rated_alone > 0"


def _sqlite_bit(row: str) -> str:
    return f"(1 << (CAST(strftime('%d', {row}.day) AS INTEGER) - 1))"


# The day's bit in its month's row (made if need be): set when the day holds practice, else cleared.
SQLITE_SET = (
    "INSERT INTO practice_months (user_id, month, days)"
    f" VALUES (NEW.user_id, date(NEW.day, 'start of month'), ({PRACTISED.format(row='NEW')}) * {_sqlite_bit('NEW')})"
    " ON CONFLICT (user_id, month) DO UPDATE"
    f" SET days = (practice_months.days & ~{_sqlite_bit('NEW')}) | excluded.days;"
)


SQLITE_TRIGGERS = {
    "practice_months_day_added": f"AFTER INSERT ON practice_days BEGIN {SQLITE_SET} END",
    "practice_months_day_changed": (
        f"AFTER UPDATE OF answers, rated_alone ON practice_days BEGIN {SQLITE_SET} END"
    ),
    # Cleared in place: a person deleted takes their months and days at once, and a row made
    # again here would name nobody.
    "practice_months_day_removed": (
        "AFTER DELETE ON practice_days BEGIN UPDATE practice_months"
        f" SET days = days & ~{_sqlite_bit('OLD')}"
        " WHERE user_id = OLD.user_id AND month = date(OLD.day, 'start of month'); END"
    ),
}

PG_FUNCTION = """
CREATE FUNCTION practice_months_day() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  bit integer;
BEGIN
  IF TG_OP = 'DELETE' THEN
    bit := 1 << (extract(day FROM OLD.day)::integer - 1);
    UPDATE practice_months SET days = days & ~bit
    WHERE user_id = OLD.user_id AND month = date_trunc('month', OLD.day)::date;
    RETURN NULL;
  END IF;
  bit := 1 << (extract(day FROM NEW.day)::integer - 1);
  INSERT INTO practice_months (user_id, month, days)
  VALUES (NEW.user_id, date_trunc('month', NEW.day)::date, (NEW.answers + NEW.rated_alone > 0)::integer * bit)
  ON CONFLICT (user_id, month) DO UPDATE SET days = (practice_months.days & ~bit) | excluded.days;
  RETURN NULL;
END $$
"""

FILL = {
    "sqlite": (
        "INSERT INTO practice_months (user_id, month, days)"
        f" SELECT user_id, date(day, 'start of month'), sum({_sqlite_bit('practice_days')})"
        f" FROM practice_days WHERE {PRACTISED.format(row='practice_days')} GROUP BY 1, 2"
    ),
    # A month's days are distinct, so the sum of their bits is their OR.
    "postgresql": (
        "INSERT INTO practice_months (user_id, month, days)"
        " SELECT user_id, date_trunc('month', day)::date, sum(1 << (extract(day FROM day)::integer - 1))::integer"
        f" FROM practice_days WHERE {PRACTISED.format(row='practice_days')} GROUP BY 1, 2"
    ),
}


def upgrade() -> None:
    op.create_table(
        "practice_months",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("month", sa.Date(), nullable=False),
        sa.Column("days", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_practice_months_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", "month", name=op.f("pk_practice_months")),
    )
    dialect = op.get_bind().dialect.name
    op.execute(FILL[dialect])
    if dialect == "sqlite":
        for name, body in SQLITE_TRIGGERS.items():
            op.execute(f"CREATE TRIGGER {name} {body}")
        return
    op.execute(PG_FUNCTION)
    op.execute(
        "CREATE TRIGGER practice_months_day AFTER INSERT OR DELETE OR UPDATE OF answers, rated_alone"
        " ON practice_days FOR EACH ROW EXECUTE FUNCTION practice_months_day()"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name in SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER {name}")
    else:
        op.execute("DROP TRIGGER practice_months_day ON practice_days")
        op.execute("DROP FUNCTION practice_months_day()")
    op.drop_table("practice_months")
