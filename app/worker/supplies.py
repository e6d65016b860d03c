"""The kinds of job a worker runs, each as its domain supplies it (app/jobs/executors.py), in the
order it reads their lanes: recordings first, since a person waits on the page for the
transcript, then demos. A new kind of job is its domain's `Supply`, added here."""

from app.demos.execution import DEMOS
from app.speech.transcription import TRANSCRIPTIONS

SUPPLIES = (TRANSCRIPTIONS, DEMOS)
