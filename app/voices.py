"""The voices the interviewer reads questions in, declared once: the setting QUESTION_VOICE
accepts exactly these names (or "none"), and the speech domain says each with flite
(app/speech/voice.py)."""

from dataclasses import dataclass
from typing import Literal

VoiceName = Literal["slt", "rms", "awb"]


@dataclass(frozen=True)
class Voice:
    name: VoiceName  # flite's -voice name
    label: str  # what the page says reads the question


VOICES: dict[str, Voice] = {
    voice.name: voice
    for voice in (
        Voice("slt", "flite's slt voice (US English)"),
        Voice("rms", "flite's rms voice (US English)"),
        Voice("awb", "flite's awb voice (Scottish English)"),
    )
}
