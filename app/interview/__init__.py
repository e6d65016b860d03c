"""The mock interview at /interview: a few cards asked one by one, each followed by one of its
follow-ups, every answer recorded as a practice attempt, and a summary at the end."""
