"""All configuration, read from environment variables (see the README's table)."""

import secrets
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app import PROJECT_ROOT

Environment = Literal["development", "production"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    environment: Environment = "development"
    data_dir: Path = PROJECT_ROOT / "data"
    database_url: str = ""
    queue_url: str = ""
    content_dir: Path = PROJECT_ROOT / "content"
    secret_key: str = ""
    # How often the card catalogue looks at content/ for edited files.
    content_poll_seconds: float = 1.0
    demo_heartbeat_timeout_seconds: float = 30.0

    @model_validator(mode="after")
    def _fill_defaults(self) -> "Settings":
        if not self.database_url:
            self.database_url = f"sqlite:///{self.data_dir / 'tiercards.db'}"
        if not self.queue_url:
            self.queue_url = f"sqlite:///{self.data_dir / 'queue.db'}"
        if self.environment == "production":
            if len(self.secret_key) < 32:
                raise ValueError("SECRET_KEY must be set to at least 32 characters in production")
        elif not self.secret_key:
            self.secret_key = _development_secret(self.data_dir)
        return self

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


def _development_secret(data_dir: Path) -> str:
    """A per-installation key kept in the data folder, so tokens survive restarts in development."""
    path = data_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    path.write_text(key)
    path.chmod(0o600)
    return key


@lru_cache
def get_settings() -> Settings:
    return Settings()
