"""One APIRouter per area of the app."""
