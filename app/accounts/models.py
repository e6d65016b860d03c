"""People and how they prove who they are: users, sign-in sessions, API tokens, invites, and the
audit log of what happened to them."""

from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, false
from sqlalchemy.orm import Mapped, mapped_column

from app.accounts.names import KEY_LENGTH
from app.roles import ROLES
from app.storage.base import Base, utcnow

# The one user of AUTH_MODE=single, who owns everything recorded before accounts existed. In the
# other modes it is nobody's account: the solo history, until `tiercards users adopt-local`.
LOCAL_USER_ID = 1
ROLE_CHECK = "role IN ({})".format(", ".join(f"'{name}'" for name in ROLES))


class User(Base):
    """One person; everything they record keys on user_id. Disabling keeps their history."""

    __tablename__ = "users"
    __table_args__ = (CheckConstraint(ROLE_CHECK, name="role_known"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    # app/accounts/names.py: one key for names a reader could take for one another.
    name_key: Mapped[str] = mapped_column(String(KEY_LENGTH), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    role: Mapped[str] = mapped_column(String(16), default="member", server_default="member")
    # argon2id; None for people who only sign in through OIDC or a proxy.
    password_hash: Mapped[str | None] = mapped_column(String(255))
    disabled_at: Mapped[datetime | None]
    # "issuer|subject" of an OIDC sign-in, so a renamed account stays the same person.
    oidc_subject: Mapped[str | None] = mapped_column(String(255), unique=True)
    # Leads see scores always; the texts of answers only when the person lets them.
    hide_answers: Mapped[bool] = mapped_column(default=False, server_default=false())

    @property
    def disabled(self) -> bool:
        return self.disabled_at is not None


class SignInSession(Base):
    """A signed-in browser. The cookie holds a random token; only its SHA-256 is stored, so a
    stolen database opens no session. Deleting the row signs the browser out at once."""

    __tablename__ = "sign_in_sessions"
    __table_args__ = (Index("ix_sign_in_sessions_user", "user_id"),)

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    address: Mapped[str | None] = mapped_column(String(64))


class ApiToken(Base):
    """A personal token for the API (`Authorization: Bearer …`); stored as its SHA-256."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]
    expires_at: Mapped[datetime]


class SignInAttempt(Base):
    """One password check (a sign-in, or the current password asked again on /account), recorded
    before the password is verified so that checks running at the same time count each other.
    Throttling counts these: failures ("pending" counts as one until it is known) per name and
    address, per address, per name, and per trusted browser (`device`), and successes per address."""

    __tablename__ = "sign_in_attempts"
    __table_args__ = (
        Index("ix_sign_in_attempts_name_at", "name", "at"),
        Index("ix_sign_in_attempts_address_at", "address", "at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(default=utcnow)
    name: Mapped[str] = mapped_column(String(80))
    address: Mapped[str | None] = mapped_column(String(64))
    # The nonce of a valid device cookie for this name; None: a browser not known to be theirs.
    device: Mapped[str | None] = mapped_column(String(32))
    # sign_in or password (the current password, asked again by a signed-in browser).
    purpose: Mapped[str] = mapped_column(String(16))
    # pending, failed or ok.
    outcome: Mapped[str] = mapped_column(String(8))


class Invite(Base):
    """A one-time link that lets a new person choose a name and password, with a role."""

    __tablename__ = "invites"
    __table_args__ = (CheckConstraint(ROLE_CHECK, name="role_known"),)

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    role: Mapped[str] = mapped_column(String(16))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    used_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    # Revoked by an admin: it opens nothing, and upkeep forgets it once it would have expired.
    revoked_at: Mapped[datetime | None]
    # The link's token is derived from this and SECRET_KEY (service.invite_token), so /admin/users
    # can offer a pending invite's link again while the database alone opens nothing. None:
    # made before links were derived.
    link_key: Mapped[str | None] = mapped_column(String(32))


class AuditEvent(Base):
    """Sign-ins (and failed ones), role changes, invites, imports, exports: who, when, from where."""

    __tablename__ = "audit_events"
    __table_args__ = (
        Index("ix_audit_events_at", "at"),
        Index("ix_audit_events_kind_at", "kind", "at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(default=utcnow)
    kind: Mapped[str] = mapped_column(String(32))
    # Whom it is about (None: a name that matches nobody, kept in detail) and who did it.
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    address: Mapped[str | None] = mapped_column(String(64))
    detail: Mapped[dict[str, Any]] = mapped_column(default=dict)
