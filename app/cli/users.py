"""`tiercards users`: people, roles and invites."""

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer

from app.cli.serve import DEFAULT_PORT
from app.settings import get_settings

users_cli = typer.Typer(help="People, roles and invites (AUTH_MODE=accounts or proxy).", no_args_is_help=True)


def _role_help() -> str:
    from app.roles import ROLES

    return "; ".join(f"{name}: {role.description}" for name, role in ROLES.items())


def _read_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\n")
    password: str = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    return password


@contextmanager
def _users_change() -> Iterator[Any]:
    """A write session on the migrated database, for one service that commits; a refusal exits 1
    with its message, nothing stored."""
    from app.cli.db import upgrade
    from app.exceptions import DomainError
    from app.storage.database import Database

    settings = get_settings()
    upgrade(settings)
    database = Database(settings)
    try:
        with database.write_sessions() as session:
            yield session
    except DomainError as error:
        typer.echo(f"error: {error.message}", err=True)
        raise typer.Exit(code=1) from error
    finally:
        database.dispose()


@users_cli.command("add")
def users_add(
    name: Annotated[str, typer.Argument(help="The name they sign in with.")],
    role: Annotated[str, typer.Option(help=_role_help())] = "member",
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from standard input (for scripts).")
    ] = False,
) -> None:
    """Add a person with a password (the first admin comes from here). Unlike an invite, this may
    take a reserved name such as admin; never local, the solo history of single mode."""
    from app.accounts import passwords, service

    password = _read_password(password_stdin)
    with _users_change() as session:
        # Hashed before the session's first query: argon2 never runs inside the write.
        hashed = passwords.new_hash(password, name)
        user = service.add_by_operator(session, name=name, role=role, password_hash=hashed)
        typer.echo(f"added {user.name} ({user.role})")


@users_cli.command("invite")
def users_invite(
    role: Annotated[str, typer.Option(help=_role_help())] = "member",
    expires_days: Annotated[float, typer.Option(help="Days the link works (at most 90).")] = 7,
    port: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=65535,
            help=f"The port `tiercards serve` listens on, for the link when PUBLIC_URL is unset "
            f"(default {DEFAULT_PORT}, serve's own).",
        ),
    ] = None,
) -> None:
    """Print a one-time invite link (on stdout), its role and when it expires (on stderr): whoever
    opens it chooses a name and a password."""
    from app.accounts import service

    settings = get_settings()
    with _users_change() as session:
        made = service.create_invite(session, role=role, days=expires_days, secret=settings.secret_key)
    base = settings.public_url
    if not base:
        base = f"http://127.0.0.1:{port or DEFAULT_PORT}"
        # Never a silently wrong address: say what was guessed and how to say where it really is.
        guessed = (
            "the port given"
            if port
            else "tiercards serve's default port; pass --port if it listens on another"
        )
        typer.echo(
            f"warning: PUBLIC_URL is unset, so this link is on {base} ({guessed}), which opens only on "
            "this machine; set PUBLIC_URL to the address people open.",
            err=True,
        )
    elif port:
        typer.echo(f"warning: --port is not used: the link is on PUBLIC_URL ({base}).", err=True)
    # The link alone on stdout, for scripts; what it grants beside it, for the person.
    typer.echo(service.invite_url(base, made.token))
    typer.echo(
        f"role: {made.role.label} ({made.role.description}); "
        f"expires {made.expires_at.strftime('%Y-%m-%d %H:%M UTC')}, in {expires_days:g} days; works once.",
        err=True,
    )


@users_cli.command("list")
def users_list() -> None:
    """Every account, with its role and whether it is disabled (the solo history of single mode is
    none: see adopt-local)."""
    from app.accounts import service

    with _users_change() as session:
        for user in service.all_users(session):
            state = "disabled" if user.disabled else "active"
            how = "password" if user.password_hash else ("oidc" if user.oidc_subject else "no password")
            typer.echo(f"{user.name}\t{user.role}\t{state}\t{how}")


@users_cli.command("set-role")
def users_set_role(
    name: Annotated[str, typer.Argument()], role: Annotated[str, typer.Argument(help=_role_help())]
) -> None:
    """Change a person's role (also how to recover when no admin can sign in); never the last
    active admin's away."""
    from app.accounts import service

    with _users_change() as session:
        service.change_person(session, name=name, role=role, via="cli")
    typer.echo(f"{name} is now {role}")


@users_cli.command("disable")
def users_disable(name: Annotated[str, typer.Argument()]) -> None:
    """Sign a person out everywhere, revoke their API tokens and keep them out; their history
    stays. Never the last active admin."""
    from app.accounts import service

    with _users_change() as session:
        service.change_person(session, name=name, disabled=True, via="cli")
    typer.echo(f"{name} is disabled")


@users_cli.command("enable")
def users_enable(name: Annotated[str, typer.Argument()]) -> None:
    """Let a disabled person sign in again."""
    from app.accounts import service

    with _users_change() as session:
        service.change_person(session, name=name, disabled=False, via="cli")
    typer.echo(f"{name} is enabled")


@users_cli.command("adopt-local")
def users_adopt_local(
    name: Annotated[str, typer.Argument(help="The account that takes the solo history.")],
) -> None:
    """Give what was practised alone (AUTH_MODE=single) to an account: attempts, schedules, demo
    runs, settings and assignments move in one step, audited. Refused, moving nothing, when the
    account and the solo history both have a schedule on one card at one depth."""
    from app.team import adopt

    with _users_change() as session:
        moved = adopt.adopt_local(session, name)
    counts = ", ".join(f"{what.replace('_', ' ')}: {count}" for what, count in moved.items())
    typer.echo(f"{name} now has the solo history: {counts}")


@users_cli.command("reset-password")
def users_reset_password(
    name: Annotated[str, typer.Argument()],
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read it from standard input.")
    ] = False,
) -> None:
    """Set a new password for a person (it signs them out everywhere and revokes their API tokens)."""
    from app.accounts import passwords, service

    password = _read_password(password_stdin)
    with _users_change() as session:
        # Hashed before the session's first query: argon2 never runs inside the write.
        hashed = passwords.new_hash(password, name)
        service.reset_password(session, name=name, password_hash=hashed)
    typer.echo(f"{name} has a new password")
