"""tiercards: practise technical-interview questions at four depths."""

from pathlib import Path

# The checkout's root: templates/, static/, content/ and migrations/ live beside app/.
PROJECT_ROOT = Path(__file__).resolve().parent.parent
