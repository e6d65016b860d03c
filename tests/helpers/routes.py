"""Every route the app serves, classified by who may reach it: the isolation tests prove each
class, and the page-cache tests read which pages are public; the paths one router module serves."""

from types import ModuleType

from fastapi.routing import APIRoute

# What each route is: public (no sign-in), shared (the same for every signed-in person), own (a
# person's own data: one person never reaches another's), lead (leads and admins), author (authors
# and admins) or admin.
ROUTES: dict[tuple[str, str], str] = {
    ("GET", "/"): "shared",
    ("GET", "/library/marks"): "own",
    ("GET", "/healthz"): "public",
    ("GET", "/readyz"): "public",
    # No sign-in (Prometheus cannot); METRICS_ALLOWED decides who reads it (tests/web/test_operations.py).
    ("GET", "/metrics"): "public",
    ("GET", "/auth/oidc/login"): "public",
    ("GET", "/auth/oidc/callback"): "public",
    ("GET", "/login"): "public",
    ("POST", "/login"): "public",
    ("POST", "/logout"): "own",
    ("GET", "/invite/{token}"): "public",
    ("POST", "/invite/{token}"): "public",
    ("GET", "/account"): "own",
    ("POST", "/account/password"): "own",
    ("POST", "/account/tokens"): "own",
    ("POST", "/account/tokens/{token_id}/revoke"): "own",
    ("GET", "/admin/users"): "admin",
    ("POST", "/admin/users/{name}"): "admin",
    ("POST", "/admin/invites"): "admin",
    ("POST", "/admin/invites/{invite_id}/revoke"): "admin",
    ("GET", "/api/me"): "own",
    ("GET", "/api/cards"): "shared",
    ("GET", "/api/cards/{card_id}"): "shared",
    ("GET", "/api/demo-presets"): "shared",
    ("GET", "/api/workers"): "shared",
    # Suggestions for an answer the asker sends: nothing of anyone is read or stored.
    ("POST", "/api/cards/{card_id}/coverage"): "shared",
    ("POST", "/api/cards/{card_id}/attempts"): "own",
    ("GET", "/api/attempts"): "own",
    ("GET", "/api/cards/{card_id}/schedule"): "own",
    ("DELETE", "/api/cards/{card_id}/reviews/latest"): "own",
    ("GET", "/api/demos"): "own",
    ("POST", "/api/demos"): "own",
    ("GET", "/api/demos/{run_id}"): "own",
    ("POST", "/api/demos/{run_id}/cancel"): "own",
    ("POST", "/api/demos/{run_id}/rerun"): "own",
    ("GET", "/api/export.csv"): "own",
    ("GET", "/api/export.json"): "own",
    ("POST", "/api/import"): "own",
    ("GET", "/api/practice/due"): "own",
    ("GET", "/api/progress"): "own",
    ("GET", "/api/settings"): "own",
    ("PUT", "/api/settings"): "own",
    ("POST", "/attempts/{attempt_id}/assessment"): "own",
    ("GET", "/attempts/{attempt_id}/suggestion"): "own",
    ("POST", "/attempts/{attempt_id}/undo"): "own",
    ("GET", "/cards/{card_id}"): "shared",
    ("POST", "/cards/{card_id}/answers"): "own",
    ("GET", "/cards/{card_id}/demo-runs"): "own",
    ("GET", "/cards/{card_id}/history"): "own",
    # The last figure anyone's run measured for a card's note: a number, never whose run it was.
    ("GET", "/cards/{card_id}/notes/{note_key}"): "shared",
    ("GET", "/cards/{card_id}/quiz"): "shared",
    ("POST", "/cards/{card_id}/quiz"): "own",
    ("POST", "/cards/{card_id}/reveal"): "own",
    ("POST", "/cards/{card_id}/recordings"): "own",
    ("GET", "/recordings/{recording_id}"): "own",
    ("POST", "/api/cards/{card_id}/recordings"): "own",
    ("GET", "/api/recordings/{recording_id}"): "own",
    # Never a lead's or an admin's: the audio of a recording is its owner's alone.
    ("GET", "/api/recordings/{recording_id}/audio"): "own",
    ("POST", "/demos"): "own",
    ("GET", "/demos/{run_id}"): "own",
    ("POST", "/demos/{run_id}/cancel"): "own",
    ("POST", "/demos/{run_id}/rerun"): "own",
    ("GET", "/demos/{run_id}/status"): "own",
    ("GET", "/practice"): "own",
    ("POST", "/practice/rate"): "own",
    ("POST", "/practice/undo"): "own",
    ("POST", "/practice/reveal"): "own",
    ("POST", "/practice/settings"): "own",
    ("GET", "/progress"): "own",
    ("GET", "/interview"): "own",
    ("POST", "/interview"): "own",
    ("GET", "/interview/{session_id}"): "own",
    ("POST", "/interview/{session_id}/answer"): "own",
    ("POST", "/interview/{session_id}/assessment"): "own",
    ("POST", "/interview/{session_id}/pass"): "own",
    ("POST", "/api/interviews"): "own",
    ("POST", "/api/interviews/{session_id}/answers"): "own",
    ("GET", "/api/interviews/{session_id}"): "own",
    # A question said aloud: a card's words, named by their hash, the same for everyone.
    ("GET", "/api/voice/{key}"): "shared",
    ("GET", "/account/privacy"): "own",
    ("POST", "/account/privacy"): "own",
    ("GET", "/team"): "lead",
    ("GET", "/team/members/{name}"): "lead",
    ("GET", "/team/members/{name}/interviews/{session_id}"): "lead",
    ("POST", "/team/assignments"): "lead",
    ("POST", "/team/assignments/{assignment_id}/delete"): "lead",
    ("GET", "/admin/audit"): "admin",
    ("GET", "/author"): "author",
    ("POST", "/author"): "author",
    ("POST", "/author/download"): "author",
    ("POST", "/api/author/check"): "author",
}


def paths_of(module: ModuleType) -> set[str]:
    """The paths a router module's routes serve."""
    return {route.path for route in module.router.routes if isinstance(route, APIRoute)}
