"""Backups: one file holding the database (and the content folder where git does not keep it),
taken while the app serves, restored into an empty database."""
