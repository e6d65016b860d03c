"""A person's practice settings: target tier, desired retention, new cards per day."""

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session

from app.content.tiers import Tier
from app.practice.models import MAX_NEW_PER_DAY, MAX_RETENTION, MIN_RETENTION, UserSettings
from app.schemas import WholeNumber
from app.storage.base import utcnow


class PracticeSettings(BaseModel):
    """What /practice schedules with. The defaults hold for a person who never saved any."""

    # Strict for JSON; the settings form validates with strict=False (see app/schemas.py).
    model_config = ConfigDict(extra="forbid", strict=True)

    target_tier: Tier = Field(default="middle", description="the depth practice opens cards at")
    desired_retention: float = Field(
        default=0.9,
        ge=MIN_RETENTION,
        le=MAX_RETENTION,
        description="the recall probability FSRS schedules each review for",
    )
    new_per_day: WholeNumber = Field(
        default=10, ge=0, le=MAX_NEW_PER_DAY, description="new cards introduced per UTC day"
    )


def load(session: Session, user_id: int) -> PracticeSettings:
    row = session.get(UserSettings, user_id)
    if row is None:
        return PracticeSettings()
    return PracticeSettings.model_validate(
        {
            "target_tier": row.target_tier,
            "desired_retention": row.desired_retention,
            "new_per_day": row.new_per_day,
        }
    )


def save(session: Session, *, user_id: int, settings: PracticeSettings) -> None:
    stage(session, user_id=user_id, settings=settings)
    session.commit()


def stage(session: Session, *, user_id: int, settings: PracticeSettings) -> None:
    """Part of the caller's unit of work: the person's settings become `settings`."""
    row = session.get(UserSettings, user_id)
    if row is None:
        row = UserSettings(user_id=user_id)
        session.add(row)
    row.target_tier = settings.target_tier
    row.desired_retention = settings.desired_retention
    row.new_per_day = settings.new_per_day
    row.updated_at = utcnow()
