"""What the tests share besides fixtures, each piece written once: pages read as a person reads
them (html), clients that speak CSRF (clients), the team and its sign-in (accounts), request bodies
(payloads), answers and reviews (practice), the author preview (authoring), real demo workers
(demos), the browser's site (browser) and the README and docs/ as GitHub shows them (docs)."""
