"""All configuration, read from environment variables (see the table in docs/configuration.md)."""

import ipaddress
import os
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from app import DEFAULT_DATA_DIR, PROJECT_ROOT
from app.auth_modes import AuthModeName
from app.roles import ROLES
from app.voices import VoiceName

Environment = Literal["development", "production"]
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# Names a browser on this machine uses; anything else must be listed in ALLOWED_HOSTS, so a
# DNS-rebinding page (attacker.example resolving to 127.0.0.1) cannot talk to the app.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
MIN_SECRET_LENGTH = 32
# A random key of 32+ characters has far more distinct characters than this; "aaaa…" or a
# repeated word does not.
MIN_SECRET_DISTINCT = 10


def _items(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _comma_list(value: object) -> object:
    return _items(value) if isinstance(value, str) else value


# A second of 16-bit 48 kHz stereo PCM: no format a recording comes in takes more.
RECORDING_BYTES_PER_SECOND = 48_000 * 2 * 2


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    environment: Environment = "development"
    data_dir: Path = DEFAULT_DATA_DIR
    database_url: str = ""
    queue_url: str = ""
    content_dir: Path = PROJECT_ROOT / "content"
    secret_key: str = ""
    # Host names the app answers to (comma-separated). Development: loopback names by default.
    allowed_hosts: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # Peers whose X-Forwarded-Proto is believed (comma-separated addresses or CIDRs).
    trusted_proxies: Annotated[list[IPNetwork], NoDecode] = Field(default_factory=list)
    # Who may read /metrics (comma-separated addresses or CIDRs): loopback unless set.
    metrics_allowed: Annotated[list[IPNetwork], NoDecode] = Field(
        default_factory=lambda: [ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128")]
    )
    # The address people open the app at (invite links printed by the CLI, OIDC redirects).
    public_url: str = ""
    # How people sign in (app/auth_modes.py): single, accounts or proxy.
    auth_mode: AuthModeName = "single"
    # single mode on a non-loopback address: anyone who reaches the port is the one user.
    allow_open_single: bool = False
    # A signed-in browser stays signed in this long without being used, and at most this long.
    session_idle_hours: float = Field(default=12.0, gt=0)
    session_max_days: float = Field(default=14.0, gt=0)
    # Successful sign-ins one address may make in 15 minutes (wrong passwords have limits of their own).
    sign_ins_per_address: int = Field(default=30, ge=1)
    # proxy mode: who the proxy says the person is, and their groups (comma-separated).
    proxy_user_header: str = "Remote-User"
    proxy_groups_header: str = "Remote-Groups"
    # Groups (from the proxy or OIDC) that grant a role, e.g. "tiercards-admins=admin,leads=lead".
    group_roles: Annotated[dict[str, str], NoDecode] = Field(default_factory=dict)
    # OIDC sign-in (accounts mode) is on when all three are set.
    oidc_issuer_url: str = ""
    oidc_client_id: str = ""
    oidc_client_secret: str = ""
    oidc_groups_claim: str = "groups"
    # Request bodies larger than this are refused with 413 before they are read.
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024)
    # The import of an export file may be larger; it is still read within this cap.
    max_import_bytes: int = Field(default=64 * 1024 * 1024, ge=1024)
    # A running import holds its person's guard this long past its last batch; a server killed
    # mid-import leaves a guard that the next import takes over once this has passed.
    import_lease_seconds: float = Field(default=30.0, gt=0)
    # An import that would leave its person more stored rows than this (attempts, review logs and
    # review states together) is refused whole: imports cannot fill the disk.
    import_rows_per_person: int = Field(default=200_000, ge=1)
    # Export files written and not yet read to their end, held on disk per person and in all (this
    # process), each for at most EXPORT_DOWNLOAD_SECONDS: unread downloads cannot fill the disk.
    exports_held_per_person: int = Field(default=2, ge=1)
    exports_held_at_once: int = Field(default=8, ge=1)
    export_download_seconds: float = Field(default=600.0, gt=0)
    # How often the card catalogue looks at content/ for edited files.
    content_poll_seconds: float = 1.0
    demo_heartbeat_timeout_seconds: float = Field(default=30.0, gt=0)
    # Demo runs one person may start in a minute (submit-and-cancel loops fill the queue).
    demo_submits_per_minute: int = Field(default=20, ge=1)
    # The demo runner child is stopped past this much memory (RSS), and runs whose buffers could
    # hold more than it leaves beside TensorFlow (about 1 GB) are refused.
    demo_memory_limit_mb: int = Field(default=3072, ge=1536)
    # Author checks (POST /api/author/check) one person may make in a minute: each parses and
    # renders a whole card.
    author_checks_per_minute: int = Field(default=30, ge=1)
    # Coverage checks (POST /api/cards/{card_id}/coverage) one person may make in a minute, counted
    # by each web process: each scores a whole answer, and nothing is stored to count them by.
    coverage_checks_per_minute: int = Field(default=30, ge=1)
    # Suggested edits one person may make in an hour: each is a card-sized text a reviewer reads.
    proposals_per_hour: int = Field(default=10, ge=1)
    # Backups (`tiercards backup`, and the workers' upkeep every BACKUP_EVERY_HOURS): where they
    # go (default DATA_DIR/backups), and how many of the newest are kept.
    backup_dir: Path | None = None
    backup_every_hours: float = Field(default=24.0, gt=0)
    backup_keep: int = Field(default=14, ge=1)
    # Finished demo runs (and their step data) are deleted after this many days.
    demo_retention_days: float = Field(default=30.0, gt=0)
    # Audit log rows are deleted after this many days (the failed sign-ins the throttle still
    # counts stay however short it is).
    audit_retention_days: float = Field(default=365.0, ge=1)
    # The CTranslate2 Whisper model folder answers aloud are transcribed with (with a SHA256SUMS
    # file); unset, the bundled tiny.en model of the speech extra.
    speech_model: str | None = None
    # Longer recordings are refused, however small the file.
    max_recording_seconds: int = Field(default=180, ge=1)
    # Off: a recording's audio is deleted as soon as it is transcribed. On: kept, playable only by
    # its owner, for RECORDING_RETENTION_DAYS.
    keep_recordings: bool = False
    # The voice a mock interview reads its questions in, on a worker with flite (app/voices.py);
    # "none": questions are shown, not read.
    question_voice: VoiceName | Literal["none"] = "slt"
    recording_retention_days: float = Field(default=7.0, gt=0)

    @property
    def max_recording_bytes(self) -> int:
        """The largest upload taken: MAX_RECORDING_SECONDS of the largest format a person or a
        browser sends (16-bit 48 kHz stereo WAV), and room for the container. A recording is judged
        by its decoded length; this only bounds what is read."""
        return self.max_recording_seconds * RECORDING_BYTES_PER_SECOND + 64 * 1024

    @field_validator("allowed_hosts", "trusted_proxies", "metrics_allowed", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        return _comma_list(value)

    @field_validator("public_url")
    @classmethod
    def _without_default_port(cls, value: str) -> str:
        """https://name:443 is https://name, the form links are printed in (compose.yaml builds
        PUBLIC_URL with its port, whatever it is)."""
        parts = urlsplit(value)
        try:
            default = parts.port == {"https": 443, "http": 80}.get(parts.scheme)
        except ValueError:  # not a port at all: left for the link to show
            return value
        if not default or parts.hostname is None:
            return value
        name = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        return urlunsplit(parts._replace(netloc=name))

    @field_validator("group_roles", mode="before")
    @classmethod
    def _pairs(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        pairs = {}
        for item in _items(value):
            group, _, role = item.rpartition("=")
            pairs[group.strip()] = role.strip().lower()
        return pairs

    @field_validator("group_roles")
    @classmethod
    def _known_roles(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = sorted({role for role in value.values() if role not in ROLES})
        if unknown or any(not group for group in value):
            raise ValueError(f"GROUP_ROLES pairs are group=role with a role among {', '.join(ROLES)}")
        return value

    @field_validator("trusted_proxies", "metrics_allowed", mode="before")
    @classmethod
    def _networks(cls, value: object) -> object:
        if isinstance(value, list):
            return [
                ipaddress.ip_network(item, strict=False) if isinstance(item, str) else item for item in value
            ]
        return value

    @model_validator(mode="after")
    def _fill_defaults(self) -> "Settings":
        if not self.database_url:
            self.database_url = f"sqlite:///{self.data_dir / 'tiercards.db'}"
        if not self.queue_url:
            self.queue_url = f"sqlite:///{self.data_dir / 'queue.db'}"
        if self.auth_mode == "proxy" and not self.trusted_proxies:
            raise ValueError(
                "AUTH_MODE=proxy needs TRUSTED_PROXIES: the addresses of the proxies whose "
                f"{self.proxy_user_header} header is believed (from anyone else it would let them be anyone)"
            )
        if self.environment == "production":
            _check_production_secret(self.secret_key)
            if not self.allowed_hosts:
                raise ValueError("ALLOWED_HOSTS must name the host(s) this app is served as in production")
        else:
            if not self.secret_key:
                self.secret_key = _development_secret(self.data_dir)
            if not self.allowed_hosts:
                self.allowed_hosts = list(LOOPBACK_HOSTS)
        return self

    @property
    def oidc_enabled(self) -> bool:
        return self.auth_mode == "accounts" and bool(
            self.oidc_issuer_url and self.oidc_client_id and self.oidc_client_secret
        )

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def is_production(self) -> bool:
        return self.environment == "production"


def _check_production_secret(key: str) -> None:
    if len(key.strip()) < MIN_SECRET_LENGTH or len(set(key)) < MIN_SECRET_DISTINCT:
        raise ValueError(
            f"SECRET_KEY must be a random value of at least {MIN_SECRET_LENGTH} characters in "
            "production, e.g. the output of: openssl rand -hex 32"
        )


def _development_secret(data_dir: Path) -> str:
    """A per-installation key kept in the data folder, so tokens survive restarts in development."""
    path = data_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)  # private, whatever the umask
    key = secrets.token_urlsafe(48)
    # Created private: never readable by others, not even for the moment before a chmod.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(key)
    return key


@lru_cache
def get_settings() -> Settings:
    return Settings()
