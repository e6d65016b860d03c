"""`python -m app.cli`, as the web server's worker supervisor and the tests start it."""

from app.cli import main

main()
