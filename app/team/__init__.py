"""The team: a lead's dashboard of every member, assignments, and who may read whose answers."""
