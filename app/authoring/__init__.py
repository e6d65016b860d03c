"""The author preview: a card's markdown checked and shown at every depth before it is published."""
