"""Cards: the markdown format, its validator, rendering and the in-memory catalogue."""
