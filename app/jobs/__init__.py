"""The job queue the web puts work on and the workers take it from: its lanes and its tasks."""
