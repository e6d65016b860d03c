"""tiercards: practise technical-interview questions at four depths."""

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
# In the repository (and an editable install of it) templates/, static/, migrations/, alembic.ini
# and the default content/ live beside app/. A built wheel has nothing beside its package, so it
# carries copies of them in app/bundled/ (setup.py puts them there).
_BUNDLED = _PACKAGE / "bundled"
_FROM_WHEEL = _BUNDLED.is_dir()

# Where those files are: the checkout's root, or the wheel's copy.
PROJECT_ROOT = _BUNDLED if _FROM_WHEEL else _PACKAGE.parent
# The data folder unless DATA_DIR says otherwise: the checkout's data/, or ./data in the folder an
# installed app is started from (never inside the installed package).
DEFAULT_DATA_DIR = Path("data") if _FROM_WHEEL else PROJECT_ROOT / "data"
