"""Accounts: people, their passwords, sign-in sessions, API tokens and invites.

Secrets (session cookies, API tokens, invite links) are 256-bit values of which only the SHA-256
is stored, so the database alone opens nothing. Cookies and tokens are random and handed out once;
an invite's token is an HMAC under SECRET_KEY of a random key stored with it, so an admin can be
shown a pending invite's link again.
"""

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.sql import Select

from app.accounts import audit, names, passwords
from app.accounts.models import LOCAL_USER_ID, ApiToken, Invite, SignInSession, User
from app.exceptions import Conflict, DomainError, Forbidden, Invalid, NotFound
from app.roles import ROLES, Role, role_named
from app.storage.base import utcnow

# How long an API token lasts unless its maker says otherwise, and the most they may say.
TOKEN_DAYS = 90
MAX_TOKEN_DAYS = 365
# A session seen this recently is not written again just to say so.
TOUCH_INTERVAL = timedelta(minutes=1)


class SignInRefused(Invalid):
    """Wrong name or password (which of the two is not said), or a disabled account."""

    def __init__(self) -> None:
        super().__init__("password", "that name and password do not match an active account")


@dataclass(frozen=True)
class Lifetimes:
    """How long a sign-in lasts: `idle` since the browser was last seen, `absolute` since sign-in."""

    idle: timedelta
    absolute: timedelta


@dataclass(frozen=True)
class SignIn:
    """A browser just signed in: who (their device cookie names them) and its session's token."""

    name: str
    token: str


def new_secret() -> tuple[str, str]:
    """A random token and its SHA-256 (what is stored)."""
    token = secrets.token_urlsafe(32)
    return token, digest(token)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def role_or_invalid(name: str) -> Role:
    role = role_named(name)
    if role is None:
        raise Invalid("role", f"role must be one of {', '.join(ROLES)}")
    return role


# --- people --------------------------------------------------------------------------------------


def user_named(session: Session, *, name: str, lock: bool = False) -> User | None:
    """The account called exactly `name`. Never the solo history of single mode: nobody signs in,
    is named by a proxy or is managed as it. `lock`: its row, fresh, held until commit (FOR NO
    KEY UPDATE, as in lock_person)."""
    if not names.NAME_PATTERN.fullmatch(name):
        # Nobody is called so; and PostgreSQL would refuse a NUL in the query (a 500, not a 404).
        return None
    query = select(User).where(User.name == name, User.id != LOCAL_USER_ID)
    if lock:
        query = query.with_for_update(key_share=True).execution_options(populate_existing=True)
    return session.scalar(query)


def user_by_id(session: Session, user_id: int) -> User:
    """The person signed in as `user_id` (in single mode, the solo history: its one person)."""
    user = session.get(User, user_id)
    if user is None:
        raise NotFound(f"no user with id {user_id}")
    return user


def name_like(session: Session, name: str) -> str | None:
    """The name already there that `name` would pass for (the solo history's too), if any."""
    return session.scalar(select(User.name).where(User.name_key == names.name_key(name)))


def account_named(session: Session, *, name: str, lock: bool = False) -> User:
    """The account called exactly `name` (user_named), or NotFound."""
    user = user_named(session, name=name, lock=lock)
    if user is None:
        raise NotFound(f"no user named '{name}'")
    return user


def all_users(session: Session) -> list[User]:
    """Every account, by name; the solo history of single mode is none."""
    return list(session.scalars(select(User).where(User.id != LOCAL_USER_ID).order_by(User.name)))


def lock_person(session: Session, user_id: int) -> None:
    """Part of the caller's unit of work. Serialise one person's writes that check before they insert (their schedule, their demo
    limits) until the caller commits: a no-op on SQLite (BEGIN IMMEDIATE already holds the one
    write lock), a row lock on the person on PostgreSQL, where two transactions could otherwise
    both find nothing and both insert. FOR NO KEY UPDATE: an insert that points at the person
    (an attempt, a run) holds FOR KEY SHARE on their row, which a plain FOR UPDATE would then
    wait on from both sides, a deadlock. Taken once per transaction: an answer's schedule asks
    again for the lock its answer already holds."""
    transaction = session.get_transaction()
    held = session.info.get(_LOCKED)
    if transaction is not None and held == (transaction, user_id):
        return
    session.execute(select(User.id).where(User.id == user_id).with_for_update(key_share=True))
    session.info[_LOCKED] = (session.get_transaction(), user_id)


# Where a session notes the person it locked, and in which transaction (a new one locks again).
_LOCKED = "locked_person"


def create_user(
    session: Session,
    *,
    name: str,
    role: str = "member",
    password: str | None = None,
    actor_id: int | None = None,
    address: str | None = None,
    by_operator: bool = False,
    password_hash: str | None = None,
) -> User:
    """Part of the caller's unit of work. A new person (a password is optional: OIDC and proxy
    people have none). A reserved name is refused unless `by_operator` (names.check_name); a name
    like one already there always is. Inside a write, pass `password_hash` (passwords.new_hash,
    made before the write began) rather than `password`, which is hashed here: argon2 is slow."""
    key = names.check_name(name, by_operator=by_operator)
    chosen = role_or_invalid(role)
    taken = name_like(session, name)
    if taken is not None:
        raise Conflict(
            f"the name '{name}' is taken"
            if taken == name
            else f"the name '{name}' is too like '{taken}', which is taken"
        )
    if password is not None:
        passwords.check(password, name)
        password_hash = passwords.hash_password(password)
    user = User(name=name, name_key=key, role=chosen.name, password_hash=password_hash)
    try:
        # A savepoint: on Postgres another transaction may have taken the name since the check
        # above (two first requests of a proxy-named person, on two replicas); that is a conflict,
        # not a broken transaction.
        with session.begin_nested():
            session.add(user)
    except IntegrityError as error:
        raise Conflict(f"the name '{name}' is taken") from error
    audit.record(
        session, kind="user_created", user_id=user.id, actor_id=actor_id, address=address, role=chosen.name
    )
    return user


def add_by_operator(session: Session, *, name: str, role: str, password_hash: str) -> User:
    """The operator's new person, with a password (the first admin comes from here): a reserved
    name such as admin is theirs to give."""
    user = create_user(session, name=name, role=role, by_operator=True, password_hash=password_hash)
    session.commit()
    return user


def set_role(
    session: Session,
    *,
    user: User,
    role: str,
    actor_id: int | None = None,
    address: str | None = None,
    via: str = "admin",
) -> None:
    """Part of the caller's unit of work."""
    chosen = role_or_invalid(role)
    if chosen.name != user.role:
        audit.record(
            session,
            kind="role_changed",
            user_id=user.id,
            actor_id=actor_id,
            address=address,
            old=user.role,
            new=chosen.name,
            via=via,
        )
        user.role = chosen.name


def set_disabled(
    session: Session, *, user: User, disabled: bool, actor_id: int | None = None, address: str | None = None
) -> None:
    """Part of the caller's unit of work. Disabling ends every session of theirs at once and keeps
    their history."""
    if disabled and user.disabled_at is None:
        user.disabled_at = utcnow()
        session.execute(delete(SignInSession).where(SignInSession.user_id == user.id))
        revoke_tokens(session, user.id)
        audit.record(session, kind="user_disabled", user_id=user.id, actor_id=actor_id, address=address)
    elif not disabled and user.disabled_at is not None:
        user.disabled_at = None
        audit.record(session, kind="user_enabled", user_id=user.id, actor_id=actor_id, address=address)


def set_password(
    session: Session,
    *,
    user: User,
    password_hash: str,
    actor_id: int | None = None,
    address: str | None = None,
) -> None:
    """Part of the caller's unit of work. Store a new password (hashed by passwords.new_hash,
    before the write: argon2 is slow); it ends every sign-in and every API token of theirs."""
    user.password_hash = password_hash
    session.execute(delete(SignInSession).where(SignInSession.user_id == user.id))
    revoke_tokens(session, user.id)
    audit.record(
        session, kind="password_changed", user_id=user.id, actor_id=actor_id or user.id, address=address
    )


def reset_password(session: Session, *, name: str, password_hash: str) -> None:
    """The operator's new password for `name` (NotFound when nobody has it)."""
    set_password(session, user=account_named(session, name=name), password_hash=password_hash)
    session.commit()


def change_password(
    session: Session, *, user_id: int, password_hash: str, lifetimes: Lifetimes, address: str | None
) -> SignIn:
    """A person's own new password. It signs every browser of theirs out, so the one that asked is
    signed back in, in the same step."""
    user = user_by_id(session, user_id)
    set_password(session, user=user, password_hash=password_hash, address=address)
    return _signed_in(session, user=user, lifetimes=lifetimes, address=address, how="password")


def _active_admins() -> Select[int]:
    # The solo history of single mode is nobody's account: never an admin here, whatever its row says.
    return select(User.id).where(User.role == "admin", User.disabled_at.is_(None), User.id != LOCAL_USER_ID)


def admins_left(session: Session) -> int:
    """Active admins."""
    return int(session.scalar(select(func.count()).select_from(_active_admins().subquery())) or 0)


def change_person(
    session: Session,
    *,
    name: str,
    role: str | None = None,
    disabled: bool | None = None,
    actor_id: int | None = None,
    address: str | None = None,
    via: str = "admin",
) -> User:
    """An admin's or the CLI's change to a person's role or standing, refused (Conflict) when it
    would take the last active admin away; a refusal rolls back, so the session reads as before.

    The check and the change are one: the active admins' rows are locked first, in id order, so
    two admins changing each other at the same moment take turns, and the second counts what the
    first did (on PostgreSQL; SQLite's writers take turns already)."""
    try:
        session.execute(_active_admins().order_by(User.id).with_for_update(key_share=True))
        user = account_named(session, name=name, lock=True)
        was_admin = user.role == "admin" and not user.disabled
        if role is not None:
            set_role(session, user=user, role=role, actor_id=actor_id, address=address, via=via)
        if disabled is not None:
            set_disabled(session, user=user, disabled=disabled, actor_id=actor_id, address=address)
        if was_admin and admins_left(session) == 0:
            raise Conflict("that would leave no active admin; make someone else an admin first")
    except DomainError:
        session.rollback()
        raise
    session.commit()
    return user


# --- signing in -------------------------------------------------------------------------------------


def start_session(
    session: Session, *, user: User, lifetimes: Lifetimes, address: str | None, how: str = "password"
) -> str:
    """Part of the caller's unit of work. A new signed-in browser for `user`; returns the cookie's
    token."""
    token, token_hash = new_secret()
    now = utcnow()
    session.add(
        SignInSession(
            token_hash=token_hash,
            user_id=user.id,
            created_at=now,
            last_seen_at=now,
            expires_at=now + lifetimes.absolute,
            address=address,
        )
    )
    audit.record(session, kind="sign_in", user_id=user.id, actor_id=user.id, address=address, how=how)
    return token


def _signed_in(
    session: Session, *, user: User, lifetimes: Lifetimes, address: str | None, how: str
) -> SignIn:
    """Ends a unit of work that signs `user` in: their new session, committed with the rest."""
    token = start_session(session, user=user, lifetimes=lifetimes, address=address, how=how)
    session.commit()
    return SignIn(user.name, token)


def sign_in(session: Session, *, user_id: int, lifetimes: Lifetimes, address: str | None) -> SignIn:
    """A new signed-in browser for the person whose password was just checked."""
    return _signed_in(
        session, user=user_by_id(session, user_id), lifetimes=lifetimes, address=address, how="password"
    )


def session_user(session: Session, *, token: str, lifetimes: Lifetimes) -> tuple[User | None, bool]:
    """Whose browser holds `token` if the sign-in is still alive, and whether it is time to
    store that it was seen (touch_session, in a write transaction of its own)."""
    row = session.get(SignInSession, digest(token))
    now = utcnow()
    if row is None or row.expires_at <= now or row.last_seen_at + lifetimes.idle <= now:
        return None, False
    user = session.get(User, row.user_id)
    if user is None or user.disabled:
        return None, False
    return user, now - row.last_seen_at >= TOUCH_INTERVAL


def touch_session(session: Session, token: str) -> None:
    session.execute(
        update(SignInSession).where(SignInSession.token_hash == digest(token)).values(last_seen_at=utcnow())
    )
    session.commit()


def end_session(session: Session, *, token: str, address: str | None = None) -> None:
    """Sign the browser holding `token` out (nothing happens for a token that opens nothing)."""
    row = session.get(SignInSession, digest(token))
    if row is not None:
        audit.record(session, kind="sign_out", user_id=row.user_id, actor_id=row.user_id, address=address)
        session.delete(row)
        session.commit()


# --- API tokens ---------------------------------------------------------------------------------------


def create_token(
    session: Session, *, user_id: int, name: str, days: int = TOKEN_DAYS, address: str | None = None
) -> str:
    """A personal API token that lasts `days`; returns it (shown once)."""
    name = name.strip()
    if not 1 <= len(name) <= 80 or not name.isprintable():
        raise Invalid("name", "name the token (1 to 80 characters), e.g. the script that uses it")
    if not 1 <= days <= MAX_TOKEN_DAYS:
        raise Invalid("expires_days", f"a token lasts 1 to {MAX_TOKEN_DAYS} days")
    user = user_by_id(session, user_id)
    token, token_hash = new_secret()
    now = utcnow()
    session.add(
        ApiToken(
            user_id=user.id,
            name=name,
            token_hash=token_hash,
            created_at=now,
            expires_at=now + timedelta(days=days),
        )
    )
    audit.record(
        session,
        kind="token_created",
        user_id=user.id,
        actor_id=user.id,
        address=address,
        name=name,
        days=days,
    )
    session.commit()
    return token


def tokens_of(session: Session, user_id: int) -> list[ApiToken]:
    """The person's tokens that still work."""
    query = select(ApiToken).where(
        ApiToken.user_id == user_id, ApiToken.revoked_at.is_(None), ApiToken.expires_at > utcnow()
    )
    return list(session.scalars(query.order_by(ApiToken.created_at.desc())))


def has_password(session: Session, user_id: int) -> bool:
    """Whether the person signs in with a password (to be asked again before a token). Never the
    solo history of single mode: a password left on its row is nobody's (no sign-in checks it)."""
    if user_id == LOCAL_USER_ID:
        return False
    return session.scalar(select(User.password_hash).where(User.id == user_id)) is not None


def revoke_tokens(session: Session, user_id: int) -> None:
    """Part of the caller's unit of work. Every token of the person stops working; none comes back
    (a re-enabled person makes new ones)."""
    session.execute(
        update(ApiToken)
        .where(ApiToken.user_id == user_id, ApiToken.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )


def revoke_token(session: Session, *, user_id: int, token_id: int, address: str | None = None) -> None:
    token = session.get(ApiToken, token_id)
    if token is None or token.user_id != user_id or token.revoked_at is not None:
        raise NotFound(f"no token with id {token_id}")
    token.revoked_at = utcnow()
    audit.record(
        session, kind="token_revoked", user_id=user_id, actor_id=user_id, address=address, name=token.name
    )
    session.commit()


def token_user(session: Session, token: str) -> tuple[User | None, bool]:
    """Whose API token this is (revoked, expired, unknown or disabled: nobody), and whether to
    store that it was used (touch_token)."""
    row = session.scalar(
        select(ApiToken).where(
            ApiToken.token_hash == digest(token),
            ApiToken.revoked_at.is_(None),
            ApiToken.expires_at > utcnow(),
        )
    )
    if row is None:
        return None, False
    user = session.get(User, row.user_id)
    if user is None or user.disabled:
        return None, False
    return user, row.last_used_at is None or utcnow() - row.last_used_at >= TOUCH_INTERVAL


def touch_token(session: Session, token: str) -> None:
    session.execute(
        update(ApiToken).where(ApiToken.token_hash == digest(token)).values(last_used_at=utcnow())
    )
    session.commit()


# --- people named by someone else (a proxy, an OIDC provider) -----------------------------------------


def role_for_groups(groups: list[str], group_roles: dict[str, str]) -> str | None:
    """The strongest role any of `groups` grants (admin > lead > author > member). With GROUP_ROLES
    set the provider is authoritative: mapped to nothing is a member. Without it, None (the
    stored role stays)."""
    if not group_roles:
        return None
    granted = {group_roles[g] for g in groups if g in group_roles}
    return next((name for name in ROLES if name in granted), "member")


def ensure_user(
    session: Session, *, name: str, role: str | None, how: str, address: str | None = None
) -> User:
    """The person `name`, created on first sight (as a member unless `role`); a `role` from their
    groups replaces the stored one each time, so a change at the provider takes effect here. A
    reserved name, or one like someone else's, is refused (Invalid, Conflict)."""
    user = user_named(session, name=name)
    if user is None:
        try:
            user = create_user(session, name=name, role=role or "member", address=address)
        except Conflict:
            # Created by a request that ran at the same time: that one is this person too.
            user = user_named(session, name=name)
            if user is None:
                raise
    if role is not None and role != user.role:
        set_role(session, user=user, role=role, address=address, via=how)
    session.commit()
    return user


# --- OIDC sign-in: people known by their provider's "issuer|sub" ----------------------------------


def user_by_subject(session: Session, subject: str) -> User | None:
    return session.scalar(select(User).where(User.oidc_subject == subject, User.id != LOCAL_USER_ID))


def free_name(session: Session, wanted: str) -> str:
    """`wanted` made into a valid name nobody has: other characters become "-", and a reserved
    name or one like a name already there gets "-2", "-3"… (an OIDC "alice" is never signed in
    as the local alice, an "admin" is never called so)."""
    cleaned = re.sub(r"[^A-Za-z0-9._@+-]", "-", wanted).lstrip("._@+-")[:80] or "user"
    name, number = cleaned, 1
    while names.is_reserved(name) or name_like(session, name) is not None:
        number += 1
        suffix = f"-{number}"
        name = cleaned[: 80 - len(suffix)] + suffix
    return name


def oidc_user(
    session: Session, *, subject: str, wanted_name: str, role: str | None, address: str | None = None
) -> User:
    """Part of the caller's unit of work. The person the provider vouches for: found by
    `subject`, else created (as a member unless `role`) under a free name near `wanted_name`. A
    `role` from their groups replaces the stored one at every sign-in. A disabled person is
    refused before anything changes."""
    user = user_by_subject(session, subject)
    if user is None:
        user = create_user(
            session, name=free_name(session, wanted_name), role=role or "member", address=address
        )
        user.oidc_subject = subject
    elif user.disabled:
        raise Forbidden("this account is disabled: ask an admin to enable it")
    elif role is not None:
        set_role(session, user=user, role=role, address=address, via="oidc")
    return user


def oidc_sign_in(
    session: Session,
    *,
    subject: str,
    wanted_name: str,
    role: str | None,
    lifetimes: Lifetimes,
    address: str | None,
) -> SignIn:
    """Sign in the person the provider vouches for (oidc_user), created or updated with it."""
    user = oidc_user(session, subject=subject, wanted_name=wanted_name, role=role, address=address)
    return _signed_in(session, user=user, lifetimes=lifetimes, address=address, how="oidc")


# --- invites ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewInvite:
    """An invite just made: the token of its link (/invite/{token}), its role and its end."""

    token: str
    role: Role
    expires_at: datetime


@dataclass(frozen=True)
class PendingInvite:
    """An invite nobody used, revoked or let expire. `id` names it to the admin's revoke form (the
    SHA-256 of its token, which opens nothing); `token` is None when its link cannot be made again
    (made before links were derived, or under another SECRET_KEY)."""

    id: str
    role: Role
    expires_at: datetime
    token: str | None


# What an invite's id looks like (service.digest): anything else names no invite.
INVITE_ID = re.compile(r"[0-9a-f]{64}")


def invite_token(secret: str, link_key: str) -> str:
    """The token of an invite's link: an HMAC of its stored key under SECRET_KEY, so its link can
    be shown again, while the database alone still opens nothing."""
    mac = hmac.new(secret.encode(), f"invite:{link_key}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def invite_url(base: str, token: str) -> str:
    return f"{base.rstrip('/')}/invite/{token}"


def create_invite(
    session: Session,
    *,
    role: str,
    days: float,
    secret: str,
    actor_id: int | None = None,
    address: str | None = None,
) -> NewInvite:
    """A one-time invite, its link's token derived from `secret` (SECRET_KEY)."""
    chosen = role_or_invalid(role)
    if not 0 < days <= 90:
        raise Invalid("expires_days", "an invite lasts more than 0 and at most 90 days")
    link_key = secrets.token_hex(16)
    token = invite_token(secret, link_key)
    now = utcnow()
    invite = Invite(
        token_hash=digest(token),
        link_key=link_key,
        role=chosen.name,
        created_by=actor_id,
        created_at=now,
        expires_at=now + timedelta(days=days),
    )
    session.add(invite)
    audit.record(
        session, kind="invite_created", actor_id=actor_id, address=address, role=chosen.name, days=days
    )
    session.commit()
    return NewInvite(token, chosen, invite.expires_at)


def pending_invites(session: Session, *, secret: str) -> list[PendingInvite]:
    """Invites that still sign someone up, the soonest to expire first."""
    query = select(Invite).where(
        Invite.used_at.is_(None), Invite.revoked_at.is_(None), Invite.expires_at > utcnow()
    )
    found = []
    for invite in session.scalars(query.order_by(Invite.expires_at)):
        token = invite_token(secret, invite.link_key) if invite.link_key else None
        found.append(
            PendingInvite(
                id=invite.token_hash,
                role=ROLES[invite.role],
                expires_at=invite.expires_at,
                token=token if token is not None and digest(token) == invite.token_hash else None,
            )
        )
    return found


def revoke_invite(session: Session, *, invite_id: str, actor_id: int, address: str | None) -> Role:
    """An admin's end to a pending invite: its link opens nothing from now on. Refused, changing
    nothing, for an invite that is not pending; returns the revoked invite's role."""
    invite = session.get(Invite, invite_id, with_for_update=True) if INVITE_ID.fullmatch(invite_id) else None
    if invite is None:
        raise NotFound(
            "no invite with that id: it never existed, or it ended long enough ago to be forgotten"
        )
    if invite.used_at is not None:
        raise Conflict("that invite was used already: disable the person it signed up instead")
    if invite.revoked_at is not None:
        raise Conflict("that invite was revoked already")
    if invite.expires_at <= utcnow():
        raise Conflict("that invite has expired already")
    invite.revoked_at = utcnow()
    audit.record(session, kind="invite_revoked", actor_id=actor_id, address=address, role=invite.role)
    session.commit()
    return ROLES[invite.role]


def open_invite(session: Session, *, token: str, lock: bool = False) -> Invite:
    """The invite `token` opens, or NotFound (unknown, used or expired read the same). `lock`: hold
    the invite's row until commit, so that on Postgres a second redemption waits and then finds it
    used (SQLite's one writer already does this)."""
    invite = session.get(Invite, digest(token), with_for_update=lock) if len(token) <= 128 else None
    if invite is not None and invite.revoked_at is not None:
        raise NotFound("this invite link was revoked by an admin: ask them for a new one")
    if invite is None or invite.used_at is not None or invite.expires_at <= utcnow():
        raise NotFound("this invite link is not valid: it was used, it expired, or it never existed")
    return invite


def redeem_invite(
    session: Session,
    *,
    token: str,
    name: str,
    password_hash: str,
    lifetimes: Lifetimes,
    address: str | None,
) -> SignIn:
    """Create the invited person with `password_hash` (passwords.new_hash, made before the write)
    and sign them in; the invite cannot be used again."""
    invite = open_invite(session, token=token, lock=True)
    user = create_user(
        session,
        name=name,
        role=invite.role,
        actor_id=invite.created_by,
        address=address,
        password_hash=password_hash,
    )
    invite.used_at, invite.used_by = utcnow(), user.id
    audit.record(
        session, kind="invite_used", user_id=user.id, actor_id=user.id, address=address, role=invite.role
    )
    return _signed_in(session, user=user, lifetimes=lifetimes, address=address, how="invite")
