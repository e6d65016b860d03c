"""`tiercards content new`: a card file with every section in place, ready to fill in. It is a
draft, so it is not served until its author deletes the `draft: true` line."""

from app.content.parser import ID_PATTERN

TEMPLATE = """---
id: {card_id}
title: "{title}"
level: {level}
importance: must-know
frequency: 0.5
topics: [{topic}]
timings:
  basics: 20
  solid: 50
demos: []
draft: true  # delete this line to publish the card
---

## Answer
1. The first point a good answer makes
2. The second point

## Basics
The ~20 second answer.

## Solid answer
The ~50 second answer.

## Code
```python
# a short, realistic example
```

## Go deeper
### Junior
What a junior is expected to say.

### Middle
What a middle engineer is expected to add.

### Senior
What a senior engineer is expected to add.

### Principal
What a principal engineer is expected to add.

## Deep dive
The long-form explanation.

## Follow-ups
### A question the interviewer asks next?
Its answer.

## Pitfalls
### A wrong belief a candidate might state
Why it is wrong.

## True statements
### A true statement that sounds like it could be a pitfall
Why it is true.
"""


def new_card(card_id: str, *, title: str, level: str = "middle", topic: str = "general") -> str:
    if not ID_PATTERN.match(card_id):
        raise ValueError("the id must be lowercase letters, digits and hyphens, e.g. tf-data-cache-order")
    return TEMPLATE.format(card_id=card_id, title=title.replace('"', '\\"'), level=level, topic=topic)
