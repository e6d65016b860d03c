"""A recording is checked by decoding it, never by its name: damaged, cut short, not audio, 0 s, too
long and decompression bombs are each refused with a sentence, and decoding stays bounded."""

import io
import struct
import tracemalloc
import wave
from pathlib import Path

import av
import numpy as np
import pytest

from app.exceptions import Invalid
from app.speech.decode import SAMPLE_RATE, decode_recording
from tests.speech.clips import encode, silence, speak, wav_seconds

pytestmark = pytest.mark.engine_agnostic

MAX_SECONDS = 180
SENTENCE = "The prefetch transformation overlaps the producer with the consumer."


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return speak(SENTENCE, voice="slt", folder=tmp_path_factory.mktemp("clips"))


def refusal(data: bytes, **limits: float) -> str:
    with pytest.raises(Invalid) as refused:
        decode_recording(data, max_seconds=int(limits.pop("max_seconds", MAX_SECONDS)), **limits)
    assert refused.value.field == "recording"
    return refused.value.message


def test_a_wav_decodes_to_16_khz_mono_of_its_length(clip: Path) -> None:
    recording = decode_recording(clip.read_bytes(), max_seconds=MAX_SECONDS)
    assert recording.seconds == pytest.approx(wav_seconds(clip), abs=0.01)
    assert len(recording.samples) == pytest.approx(wav_seconds(clip) * SAMPLE_RATE, abs=SAMPLE_RATE * 0.01)
    assert recording.samples.ndim == 1 and 0 < abs(recording.samples).max() <= 1.0


@pytest.mark.parametrize(
    ("container", "options"),
    [("ogg", None), ("webm", None), ("webm", {"live": "1"})],
    ids=["ogg", "webm", "webm-live"],
)
def test_opus_as_a_browser_records_it_decodes_to_the_same_length(
    clip: Path, container: str, options: dict[str, str] | None
) -> None:
    recording = decode_recording(encode(clip, container=container, options=options), max_seconds=MAX_SECONDS)
    assert recording.seconds == pytest.approx(wav_seconds(clip), abs=0.1)


def test_the_type_is_found_by_decoding_not_by_the_name(clip: Path, tmp_path: Path) -> None:
    # Bytes carry no name; the same Ogg decodes whatever it would have been called.
    data = encode(clip, container="ogg")
    renamed = tmp_path / "answer.wav"
    renamed.write_bytes(data)
    recording = decode_recording(renamed.read_bytes(), max_seconds=MAX_SECONDS)
    assert recording.seconds == pytest.approx(wav_seconds(clip), abs=0.1)


@pytest.mark.parametrize(
    ("container", "codec"),
    [("wav", "pcm_s16le"), ("ogg", "libopus"), ("webm", "libopus"), ("flac", "flac")],
)
def test_a_recording_cut_short_is_refused(clip: Path, container: str, codec: str) -> None:
    whole = clip.read_bytes() if container == "wav" else encode(clip, container=container, codec=codec)
    message = refusal(whole[: len(whole) * 2 // 3])
    assert "cut short" in message or "damaged" in message


def test_a_recording_cut_inside_its_header_is_refused(clip: Path) -> None:
    message = refusal(encode(clip, container="webm")[:40])
    assert "could not be read as audio" in message


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.7\n" + b"0" * 4000,
        b"Um, prefetch goes last." * 200,
        b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 20,
        bytes(range(256)) * 64,
    ],
    ids=["pdf", "text", "png", "noise"],
)
def test_a_file_that_is_not_audio_is_refused(data: bytes) -> None:
    assert "could not be read as audio" in refusal(data)


def test_an_empty_upload_is_refused() -> None:
    assert "empty" in refusal(b"")


def test_a_recording_of_0_s_is_refused() -> None:
    empty = io.BytesIO()
    with wave.open(empty, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(SAMPLE_RATE)
    assert "0 s" in refusal(empty.getvalue())


def test_a_recording_longer_than_the_limit_is_refused(clip: Path) -> None:
    limit = int(wav_seconds(clip)) - 1
    assert f"longer than {limit} s" in refusal(clip.read_bytes(), max_seconds=limit)


def test_three_hours_that_say_so_are_refused_before_decoding() -> None:
    three_hours = silence(3 * 3600, container="ogg", codec="libopus", rate=48000)
    tracemalloc.start()
    try:
        message = refusal(three_hours)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert f"longer than {MAX_SECONDS} s" in message
    assert peak < 8 * 2**20


def test_a_decompression_bomb_stops_decoding_at_the_limit() -> None:
    # Five megabytes that decode to three hours: with no duration in the header (as MediaRecorder
    # writes WebM), only the decoded samples tell, and decoding stops once they pass the limit.
    bomb = silence(3 * 3600, container="webm", codec="libopus", rate=48000, options={"live": "1"})
    whole_decode = 3 * 3600 * SAMPLE_RATE * 4
    assert len(bomb) < whole_decode / 100
    tracemalloc.start()
    try:
        message = refusal(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert f"longer than {MAX_SECONDS} s" in message
    assert peak < (MAX_SECONDS + 5) * SAMPLE_RATE * 4 * 3


def stated_wav(*, rate: int, channels: int = 1, frames: int = 1000) -> bytes:
    """A WAV whose header states `rate` and `channels`, whatever a WAV writer would allow."""
    data = b"\1\0" * frames * channels
    fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * 2 * channels % 2**32, 2 * channels, 16)
    body = (
        b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    )
    return b"RIFF" + struct.pack("<I", len(body)) + body


@pytest.mark.parametrize("rate", [100_000_007, 250_000_013, 4000])
def test_a_sample_rate_no_microphone_records_is_refused_before_resampling(rate: int) -> None:
    # 2 KB stating 250 MHz: resampled, it took 18 s and 2 GB before failing.
    message = refusal(stated_wav(rate=rate))
    assert f"sample rate of {rate} Hz" in message and "8000 to 192000 Hz" in message


def test_more_channels_than_a_recorder_writes_are_refused() -> None:
    assert "12 channels" in refusal(stated_wav(rate=16000, channels=12))


def test_decoding_that_takes_too_long_is_stopped(clip: Path) -> None:
    assert "took longer than" in refusal(clip.read_bytes(), max_decode_seconds=0.0)


def test_a_sound_in_a_codec_not_read_here_is_refused(clip: Path) -> None:
    message = refusal(encode(clip, container="matroska", codec="mp2"))
    assert "mp2" in message and "not read here" in message


def test_a_video_without_sound_is_refused() -> None:
    video = io.BytesIO()
    with av.open(video, "w", format="matroska") as target:
        stream = target.add_stream("mpeg4", rate=10)
        stream.width, stream.height = 64, 64
        for index in range(10):
            frame = av.VideoFrame.from_ndarray(np.full((64, 64, 3), index * 20, np.uint8), format="rgb24")
            target.mux(stream.encode(frame))
        target.mux(stream.encode(None))
    assert "no sound" in refusal(video.getvalue())
