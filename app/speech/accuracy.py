"""How close a transcript is to what was said: the word error rate, on words compared without case
or punctuation ("tf.data" and "TF data" are the same two words)."""

import re

_PIECES = re.compile(r"[^\W_]+")


def spoken_words(text: str) -> list[str]:
    return _PIECES.findall(text.lower())


def word_error_rate(reference: str, hypothesis: str) -> float:
    """(substitutions + deletions + insertions) / words of the reference (Levenshtein on words)."""
    said, heard = spoken_words(reference), spoken_words(hypothesis)
    if not said:
        return float(bool(heard))
    previous = list(range(len(heard) + 1))
    for row, word in enumerate(said, 1):
        current = [row]
        for column, other in enumerate(heard, 1):
            current.append(
                min(previous[column] + 1, current[column - 1] + 1, previous[column - 1] + (word != other))
            )
        previous = current
    return previous[-1] / len(said)
