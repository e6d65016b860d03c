"""People. One local user (id 1) until accounts exist; everything keys on user_id."""

from datetime import datetime

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from app.storage.base import Base, utcnow

LOCAL_USER_ID = 1


class User(Base):
    """One person. A single local user (id 1) until accounts exist; everything keys on user_id."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
