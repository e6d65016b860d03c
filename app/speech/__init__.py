"""Answer aloud, on the worker: the speech model (loaded from an installed package and checked
against its manifest), the decoding of a recording, and what the delivery of an answer measures."""
