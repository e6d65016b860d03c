"""The kinds of job a worker runs, each as its domain supplies it (app/jobs/executors.py), in the
order it reads their lanes: questions to say aloud, recordings, then the model's readings of answers, since a person waits
on the page for the transcript or the reading, then demos. A new kind of job is its domain's
`Supply`, added here."""

from app.demos.execution import DEMOS
from app.practice.readings import CLAIMS
from app.speech.transcription import TRANSCRIPTIONS
from app.speech.voicing import VOICE

SUPPLIES = (VOICE, TRANSCRIPTIONS, CLAIMS, DEMOS)
