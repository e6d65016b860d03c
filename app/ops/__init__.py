"""What the people who run tiercards ask of it: liveness, readiness and /metrics, and the bounded
probes of the shared parts behind them. Above the domains: it reads demo and card figures."""
