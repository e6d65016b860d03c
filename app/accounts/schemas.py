"""What the accounts API answers."""

from pydantic import BaseModel


class MeOut(BaseModel):
    name: str
    role: str
