"""A person's history out and back in: the export (JSON and CSV) and the import that merges a file."""
