"""The team's counts per card and per quiz statement (team_card_counts, team_statement_counts),
kept by the database itself as review_states, quiz_tallies and users change, so /team reads a row
a card instead of every schedule and tally of every member (app/team/counts.py).

Triggers rather than code on each write path: schedules and tallies change in many places (an
answer, an undo's replay, an import, adopting the solo history, `db rebuild-aggregates`) and by
bulk UPDATEs; a trigger sees every one of them. Who counts is the team as /team lists it: people
not disabled, the local user of single mode left out. Disabling or enabling a person takes their
counts out or puts them back.

SQLite fires a row's trigger as the row changes, so "no other schedule of this person on this
card" is read right then. PostgreSQL fires row triggers after the whole statement, when a bulk
UPDATE has moved every row already: its schedule triggers are per statement and compare how many
rows each (person, card) holds with how many the statement added or took.

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0030"
down_revision: str | None = "0029"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LOCAL_USER_ID = 1  # app.accounts.models.LOCAL_USER_ID, frozen as of this revision


def _on_team(person: str) -> str:
    return (
        f"EXISTS (SELECT 1 FROM users WHERE users.id = {person}"
        f" AND users.disabled_at IS NULL AND users.id <> {LOCAL_USER_ID})"
    )


ADD_CARD = (
    " ON CONFLICT (card_id) DO UPDATE SET reviews = team_card_counts.reviews + excluded.reviews,"
    " again = team_card_counts.again + excluded.again, people = team_card_counts.people + excluded.people"
)
ADD_STATEMENT = (
    " ON CONFLICT (card_id, item_id) DO UPDATE SET missed = team_statement_counts.missed + excluded.missed,"
    " seen = team_statement_counts.seen + excluded.seen, people = team_statement_counts.people + excluded.people"
)


def _person(sign: str) -> str:
    """A person joining (sign "+") or leaving ("-") the team: their missed statements and their
    schedules, all at once. Statements before cards and each in key order, as answers take them,
    so a person disabled while others answer never waits on an answer that waits on them."""
    return f"""
INSERT INTO team_statement_counts (card_id, item_id, missed, seen, people)
SELECT card_id, item_id, {sign}missed, {sign}seen, {sign}1 FROM quiz_tallies WHERE user_id = NEW.id AND missed > 0
ORDER BY card_id, item_id{ADD_STATEMENT};
INSERT INTO team_card_counts (card_id, reviews, again, people)
SELECT card_id, {sign}sum(reps), {sign}sum(again), {sign}1 FROM review_states WHERE user_id = NEW.id
GROUP BY card_id ORDER BY card_id{ADD_CARD};
"""


def _tally(row: str, sign: str) -> str:
    """A tally's part of its statement's count, added (sign "+") or taken away ("-")."""
    if sign == "+":
        return (
            "INSERT INTO team_statement_counts (card_id, item_id, missed, seen, people)"
            f" SELECT {row}.card_id, {row}.item_id, {row}.missed, {row}.seen, 1"
            f" WHERE {row}.missed > 0 AND {_on_team(f'{row}.user_id')}{ADD_STATEMENT};"
        )
    return (
        f"UPDATE team_statement_counts SET missed = missed - {row}.missed, seen = seen - {row}.seen,"
        f" people = people - 1 WHERE card_id = {row}.card_id AND item_id = {row}.item_id"
        f" AND {row}.missed > 0 AND {_on_team(f'{row}.user_id')};"
    )


def _sqlite_schedule(row: str, sign: str) -> str:
    """A schedule's part of its card's count, added or taken away, as the row changes."""
    others = f"SELECT 1 FROM review_states WHERE user_id = {row}.user_id AND card_id = {row}.card_id"
    if sign == "+":
        return (
            "INSERT INTO team_card_counts (card_id, reviews, again, people)"
            f" SELECT {row}.card_id, {row}.reps, {row}.again, NOT EXISTS ({others} AND id <> {row}.id)"
            f" WHERE {_on_team(f'{row}.user_id')}{ADD_CARD};"
        )
    return (
        f"UPDATE team_card_counts SET reviews = reviews - {row}.reps, again = again - {row}.again,"
        f" people = people - NOT EXISTS ({others}) WHERE card_id = {row}.card_id AND {_on_team(f'{row}.user_id')};"
    )


SQLITE_TRIGGERS = {
    "team_counts_schedule_added": f"AFTER INSERT ON review_states BEGIN {_sqlite_schedule('NEW', '+')} END",
    "team_counts_schedule_removed": f"AFTER DELETE ON review_states BEGIN {_sqlite_schedule('OLD', '-')} END",
    "team_counts_schedule_changed": (
        "AFTER UPDATE OF reps, again ON review_states"
        " WHEN NEW.user_id = OLD.user_id AND NEW.card_id = OLD.card_id"
        " BEGIN UPDATE team_card_counts SET reviews = reviews + NEW.reps - OLD.reps,"
        f" again = again + NEW.again - OLD.again WHERE card_id = NEW.card_id AND {_on_team('NEW.user_id')}; END"
    ),
    "team_counts_schedule_moved": (
        "AFTER UPDATE OF user_id, card_id ON review_states"
        " WHEN NEW.user_id <> OLD.user_id OR NEW.card_id <> OLD.card_id"
        f" BEGIN {_sqlite_schedule('OLD', '-')} {_sqlite_schedule('NEW', '+')} END"
    ),
    "team_counts_tally_added": f"AFTER INSERT ON quiz_tallies BEGIN {_tally('NEW', '+')} END",
    "team_counts_tally_removed": f"AFTER DELETE ON quiz_tallies BEGIN {_tally('OLD', '-')} END",
    "team_counts_tally_changed": (
        f"AFTER UPDATE ON quiz_tallies BEGIN {_tally('OLD', '-')} {_tally('NEW', '+')} END"
    ),
    "team_counts_person_left": (
        "AFTER UPDATE OF disabled_at ON users"
        f" WHEN OLD.disabled_at IS NULL AND NEW.disabled_at IS NOT NULL AND NEW.id <> {LOCAL_USER_ID}"
        f" BEGIN {_person('-')} END"
    ),
    "team_counts_person_back": (
        "AFTER UPDATE OF disabled_at ON users"
        f" WHEN OLD.disabled_at IS NOT NULL AND NEW.disabled_at IS NULL AND NEW.id <> {LOCAL_USER_ID}"
        f" BEGIN {_person('+')} END"
    ),
}

# PostgreSQL: per statement, from the rows the statement added and took ("added", "removed"). A
# (person, card) gains a person when it holds rows now and held none before the statement.
_PG_SCHEDULES = """
CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH change AS ({change}),
  kept AS (SELECT c.* FROM change c WHERE {on_team}),
  persons AS (SELECT user_id, card_id, sum(sign) AS added FROM kept GROUP BY user_id, card_id),
  people AS (
    SELECT p.card_id, sum((n.held > 0)::int - (n.held - p.added > 0)::int) AS people
    FROM persons p CROSS JOIN LATERAL (
      SELECT count(*) AS held FROM review_states r WHERE r.user_id = p.user_id AND r.card_id = p.card_id
    ) n
    GROUP BY p.card_id),
  sums AS (SELECT card_id, sum(sign * reps) AS reviews, sum(sign * again) AS again FROM kept GROUP BY card_id)
  INSERT INTO team_card_counts (card_id, reviews, again, people)
  SELECT s.card_id, s.reviews, s.again, p.people FROM sums s JOIN people p USING (card_id)
  WHERE s.reviews <> 0 OR s.again <> 0 OR p.people <> 0
  ORDER BY s.card_id{add};
  RETURN NULL;
END $$
"""
_ADDED = "SELECT user_id, card_id, reps, again, 1 AS sign FROM added"
_REMOVED = "SELECT user_id, card_id, reps, again, -1 AS sign FROM removed"
PG_SCHEDULE_EVENTS = {
    "insert": ("REFERENCING NEW TABLE AS added", _ADDED),
    "update": ("REFERENCING OLD TABLE AS removed NEW TABLE AS added", f"{_ADDED} UNION ALL {_REMOVED}"),
    "delete": ("REFERENCING OLD TABLE AS removed", _REMOVED),
}
PG_TALLIES = f"""
CREATE FUNCTION team_counts_tallies() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN {_tally("OLD", "-")} END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN {_tally("NEW", "+")} END IF;
  RETURN NULL;
END $$
"""
PG_PERSON = f"""
CREATE FUNCTION team_counts_person() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id = {LOCAL_USER_ID} OR (OLD.disabled_at IS NULL) = (NEW.disabled_at IS NULL) THEN RETURN NULL; END IF;
  IF NEW.disabled_at IS NULL THEN {_person("+")} ELSE {_person("-")} END IF;
  RETURN NULL;
END $$
"""

RECOUNT = f"""
INSERT INTO team_card_counts (card_id, reviews, again, people)
SELECT card_id, sum(reps), sum(again), count(DISTINCT user_id) FROM review_states
WHERE {_on_team("review_states.user_id")} GROUP BY card_id;
INSERT INTO team_statement_counts (card_id, item_id, missed, seen, people)
SELECT card_id, item_id, sum(missed), sum(seen), count(*) FROM quiz_tallies
WHERE missed > 0 AND {_on_team("quiz_tallies.user_id")} GROUP BY card_id, item_id;
"""


def upgrade() -> None:
    op.create_table(
        "team_card_counts",
        sa.Column("card_id", sa.String(120), nullable=False),
        sa.Column("reviews", sa.Integer(), nullable=False),
        sa.Column("again", sa.Integer(), nullable=False),
        sa.Column("people", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("card_id", name=op.f("pk_team_card_counts")),
    )
    op.create_table(
        "team_statement_counts",
        sa.Column("card_id", sa.String(120), nullable=False),
        sa.Column("item_id", sa.String(200), nullable=False),
        sa.Column("missed", sa.Integer(), nullable=False),
        sa.Column("seen", sa.Integer(), nullable=False),
        sa.Column("people", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("card_id", "item_id", name=op.f("pk_team_statement_counts")),
    )
    for statement in RECOUNT.split(";"):
        if statement.strip():
            op.execute(statement)
    if op.get_bind().dialect.name == "sqlite":
        for name, body in SQLITE_TRIGGERS.items():
            op.execute(f"CREATE TRIGGER {name} {body}")
        return
    for event, (tables, change) in PG_SCHEDULE_EVENTS.items():
        name = f"team_counts_schedules_{event}"
        on_team = _on_team("c.user_id")
        op.execute(_PG_SCHEDULES.format(name=name, change=change, on_team=on_team, add=ADD_CARD))
        op.execute(
            f"CREATE TRIGGER {name} AFTER {event.upper()} ON review_states {tables}"
            f" FOR EACH STATEMENT EXECUTE FUNCTION {name}()"
        )
    op.execute(PG_TALLIES)
    op.execute(
        "CREATE TRIGGER team_counts_tallies AFTER INSERT OR UPDATE OR DELETE ON quiz_tallies"
        " FOR EACH ROW EXECUTE FUNCTION team_counts_tallies()"
    )
    op.execute(PG_PERSON)
    op.execute(
        "CREATE TRIGGER team_counts_person AFTER UPDATE OF disabled_at ON users"
        " FOR EACH ROW EXECUTE FUNCTION team_counts_person()"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name in SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER {name}")
    else:
        op.execute("DROP TRIGGER team_counts_person ON users")
        op.execute("DROP TRIGGER team_counts_tallies ON quiz_tallies")
        for event in PG_SCHEDULE_EVENTS:
            op.execute(f"DROP TRIGGER team_counts_schedules_{event} ON review_states")
            op.execute(f"DROP FUNCTION team_counts_schedules_{event}()")
        op.execute("DROP FUNCTION team_counts_tallies()")
        op.execute("DROP FUNCTION team_counts_person()")
    op.drop_table("team_statement_counts")
    op.drop_table("team_card_counts")
