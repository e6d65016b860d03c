"""Recordings made for the speech tests and benchmarks: sentences flite speaks, re-encoded the way a
browser sends them, and long files built cheaply from one repeated packet."""

import hashlib
import io
import re
import subprocess
import wave
from pathlib import Path

import av
import numpy as np

from app.content.cards import Card
from app.content.render import to_plain

# The word error rate a flite clip of a deck sentence is transcribed within, primed with its card's
# terms (measured in tests/speech/test_transcribe.py).
WER_BOUND = 0.15
# Debian's flite voices: two American men, an American woman, a Scottish man.
VOICES = ("rms", "awb", "slt", "kal")


def speak(text: str, *, voice: str, folder: Path) -> Path:
    """A WAV of flite saying `text` (16 kHz mono, 16-bit)."""
    path = folder / f"{voice}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.wav"
    if not path.exists():
        subprocess.run(["flite", "-voice", voice, "-t", text, "-o", str(path)], check=True, timeout=120)
    return path


def speak_espeak(text: str, *, voice: str, folder: Path, speed: int = 175) -> Path:
    """A WAV of espeak-ng saying `text`: another engine than flite, so other voices than any the
    speech figures were first looked at on."""
    path = folder / f"espeak-{voice}-{speed}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.wav"
    if not path.exists():
        subprocess.run(
            ["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(path), text], check=True, timeout=120
        )
    return path


def joined(parts: list[Path | float], *, folder: Path) -> tuple[Path, list[tuple[float, float]]]:
    """One 16 kHz WAV of the clips and seconds of silence in `parts`, in order, and where each
    silence lies in it (start, end)."""
    from app.speech.decode import SAMPLE_RATE, decode_recording

    pieces, silences, at = [], [], 0.0
    for part in parts:
        if isinstance(part, Path):
            samples = decode_recording(part.read_bytes(), max_seconds=180).samples
            # Without the engine's own quiet at either end, the silences are exactly those asked for.
            loud = np.flatnonzero(np.abs(samples) > 0.02 * np.abs(samples).max())
            samples = samples[loud[0] : loud[-1] + 1] if len(loud) else samples
        else:
            samples = np.zeros(int(part * SAMPLE_RATE), np.float32)
            silences.append((at, at + part))
        pieces.append(samples)
        at += len(samples) / SAMPLE_RATE
    name = hashlib.sha256(repr(parts).encode()).hexdigest()[:12]
    path = folder / f"joined-{name}.wav"
    with wave.open(str(path), "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(SAMPLE_RATE)
        file.writeframes((np.clip(np.concatenate(pieces), -1, 1) * 32767).astype("<i2").tobytes())
    return path, silences


def wav_seconds(path: Path) -> float:
    with wave.open(str(path)) as file:
        return file.getnframes() / file.getframerate()


def encode(
    wav: Path, *, container: str, codec: str = "libopus", options: dict[str, str] | None = None
) -> bytes:
    """The WAV's sound in another container and codec; `live` WebM has no duration in its header,
    like the files MediaRecorder writes."""
    out = io.BytesIO()
    with av.open(str(wav)) as source, av.open(out, "w", format=container, options=options or {}) as target:
        rate = 48000 if codec == "libopus" else source.streams.audio[0].rate
        stream = target.add_stream(codec, rate=rate, layout="mono")
        resampler = av.AudioResampler(format=stream.codec_context.format.name, layout="mono", rate=rate)
        for frame in source.decode(audio=0):
            for converted in resampler.resample(frame):
                target.mux(stream.encode(converted))
        for converted in resampler.resample(None):
            target.mux(stream.encode(converted))
        target.mux(stream.encode(None))
    return out.getvalue()


def silence(
    seconds: float, *, container: str, codec: str, rate: int, options: dict[str, str] | None = None
) -> bytes:
    """`seconds` of silence, made by muxing one encoded packet over and over (encoding hours of
    audio would take minutes): a small file that decodes to a lot of sound."""
    with av.open(io.BytesIO(), "w", format=container) as scratch:
        stream = scratch.add_stream(codec, rate=rate, layout="mono")
        frame = av.AudioFrame.from_ndarray(np.zeros((1, rate), np.int16), format="s16", layout="mono")
        frame.rate = rate
        packets = [*stream.encode(frame), *stream.encode(None)]
    packet = packets[len(packets) // 2]
    assert packet.duration and packet.time_base
    step, time_base, payload = packet.duration, packet.time_base, bytes(packet)
    out = io.BytesIO()
    with av.open(out, "w", format=container, options=options or {}) as target:
        stream = target.add_stream(codec, rate=rate, layout="mono")
        for index in range(int(seconds / float(step * time_base))):
            copy = av.Packet(payload)
            copy.stream, copy.time_base = stream, time_base
            copy.pts = copy.dts = index * step
            copy.duration = step
            target.mux(copy)
    return out.getvalue()


_SENTENCE = re.compile(r"(?<=[.!?])\s+")
# flite reads code aloud badly (brackets, underscores); sentences with little code are kept.
_CODE_MARKS = re.compile(r"[()\[\]{}=_<>/*#]")


def sentences(card: Card, *, words: tuple[int, int] = (8, 40)) -> list[str]:
    """The card's basics and solid answers as plain sentences a voice can read."""
    found = []
    for text in (card.basics, card.solid):
        for sentence in _SENTENCE.split(" ".join(to_plain(text.markdown).split())):
            if words[0] <= len(sentence.split()) <= words[1] and len(_CODE_MARKS.findall(sentence)) <= 2:
                found.append(sentence)
    return found
