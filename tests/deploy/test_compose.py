"""compose.yaml, the Dockerfile, .dockerignore and the nginx config, checked against the app.

No Docker engine runs here (and no compose plugin), so these read the files as Docker would and
hold them to what the app really has: every environment variable a tiercards container gets is a
setting the app reads, and is valid for it; every command an image runs is a real `tiercards`
command; every target compose builds is a stage of the Dockerfile. tests/deploy/test_start_scripts.py
runs the same start-up scripts and nginx config against a real PostgreSQL, Redis and nginx.
"""

import ipaddress
import re
import tomllib
from pathlib import Path

import pytest
import uvicorn
from sqlalchemy.engine import make_url

from app import PROJECT_ROOT
from app.settings import Settings
from tests.deploy.deployment import (
    IMAGE_DEPLOY_DIR,
    NGINX_CONF,
    MissingVariable,
    check_cli,
    compose,
    dockerfile,
    in_build_context,
    inherited,
    lineage,
    script_path,
    service_command,
    service_health_check,
    tiercards_invocations,
    tiercards_services,
)

VARIABLES = {
    "SECRET_KEY": "5f0c8e2a9b7d4c61a3e8f2b0d9c7a6e54b3f1e0d2c8a7b69",
    "POSTGRES_PASSWORD": "0a9b8c7d6e5f4a3b",
    "PUBLIC_HOST": "cards.example.org",
}
DOCUMENT = compose(VARIABLES)
SERVICES = DOCUMENT["services"]
TIERCARDS = tiercards_services(DOCUMENT)
ARGS, STAGES = dockerfile()
SETTING_NAMES = {name.upper() for name in Settings.model_fields}


def _settings_from(environment: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Settings:
    for name in SETTING_NAMES:
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, str(value))
    return Settings(_env_file=None)


def test_the_deployment_has_every_part() -> None:
    assert set(SERVICES) == {"postgres", "redis", "migrate", "web", "worker", "gpu-worker", "proxy"}
    assert SERVICES["web"]["deploy"]["replicas"] == 2


@pytest.mark.parametrize("name", sorted(TIERCARDS))
def test_every_variable_a_tiercards_container_gets_is_a_valid_setting(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    environment = TIERCARDS[name]["environment"]
    unknown = sorted(set(environment) - SETTING_NAMES)
    assert not unknown, f"{name}: not settings of the app (app/settings.py): {unknown}"
    settings = _settings_from(environment, monkeypatch)
    assert settings.is_production and settings.auth_mode == "accounts"
    assert settings.allowed_hosts == ["cards.example.org"]
    database = make_url(settings.database_url)
    assert database.drivername == "postgresql+psycopg" and database.host == "postgres"
    assert database.password == VARIABLES["POSTGRES_PASSWORD"]
    assert settings.queue_url.startswith("redis://redis:")


def test_the_services_find_postgres_and_redis_by_their_service_names() -> None:
    environment = TIERCARDS["web"]["environment"]
    postgres = SERVICES["postgres"]["environment"]
    url = make_url(environment["DATABASE_URL"])
    assert (url.username, url.password, url.database) == (
        postgres["POSTGRES_USER"],
        postgres["POSTGRES_PASSWORD"],
        postgres["POSTGRES_DB"],
    )
    for name in TIERCARDS:
        depends = TIERCARDS[name]["depends_on"]
        assert set(depends) & {"postgres", "migrate"}, f"{name} starts before the database is there"


@pytest.mark.parametrize("variable", ["SECRET_KEY", "POSTGRES_PASSWORD"])
def test_compose_refuses_to_start_without_a_secret(variable: str) -> None:
    without = {name: value for name, value in VARIABLES.items() if name != variable}
    with pytest.raises(MissingVariable, match=variable):
        compose(without)
    with pytest.raises(MissingVariable, match=variable):
        compose({**without, variable: ""})


def test_one_shared_environment_for_every_tiercards_container() -> None:
    environments = [service["environment"] for service in TIERCARDS.values()]
    assert all(environment == environments[0] for environment in environments)


def test_every_replica_and_worker_reads_the_same_cards() -> None:
    mounts = set()
    for name, service in TIERCARDS.items():
        content_dir = service["environment"]["CONTENT_DIR"]
        sources = [
            volume.split(":")[0] for volume in service["volumes"] if volume.split(":")[1] == content_dir
        ]
        assert len(sources) == 1, f"{name} does not mount the cards at CONTENT_DIR ({content_dir})"
        mounts.add(sources[0])
    assert mounts == {"./content"}


def test_web_replicas_start_after_the_migration_and_the_proxy_after_healthy_replicas() -> None:
    migrate = SERVICES["migrate"]
    assert migrate["restart"] == "no"
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in ("web", "worker", "gpu-worker"):
        depends = SERVICES[name]["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully"
        assert depends["redis"]["condition"] == "service_healthy"
    assert SERVICES["proxy"]["depends_on"]["web"]["condition"] == "service_healthy"


def test_every_command_is_a_real_tiercards_command() -> None:
    ran = {}
    for name in TIERCARDS:
        script = script_path(service_command(DOCUMENT, name))
        assert script.exists() and script.stat().st_mode & 0o111, f"{script} is not an executable script"
        invocations = tiercards_invocations(script)
        assert invocations, f"{script} runs no tiercards command"
        for words in invocations:
            check_cli(words)
        ran[name] = invocations[-1][1:3]
    assert ran == {
        "migrate": ["db", "upgrade"],
        "web": ["serve", "--no-worker"],
        "worker": ["worker"],
        "gpu-worker": ["worker"],
    }


def test_compose_builds_only_stages_the_dockerfile_has() -> None:
    for name, service in TIERCARDS.items():
        assert service["build"]["context"] == "."
        assert service["build"]["target"] in STAGES, f"{name}: no stage {service['build']['target']}"
    assert {"web", "worker", "gpu-worker", "builder"} <= set(STAGES)


def test_the_web_replicas_and_workers_have_health_checks_that_exist() -> None:
    checks = {name: service_health_check(DOCUMENT, name) for name in ("web", "worker", "gpu-worker")}
    # Liveness of the replica (tests/deploy/test_start_scripts.py runs it against one).
    assert checks["web"] == [f"{IMAGE_DEPLOY_DIR}healthcheck-web.sh"]
    assert "/healthz" in script_path(checks["web"]).read_text()
    # A worker is healthy while it beats.
    assert checks["worker"] == checks["gpu-worker"] == ["tiercards", "demo", "workers", "--here"]
    check_cli(checks["worker"])


@pytest.mark.parametrize("name", ["postgres", "redis"])
def test_postgres_and_redis_have_health_checks(name: str) -> None:
    assert SERVICES[name]["healthcheck"]["test"][0] == "CMD"


def test_images_run_as_an_unprivileged_user_in_accounts_mode() -> None:
    for target in ("web", "worker", "gpu-worker"):
        assert inherited(STAGES, target, "USER") not in (None, "root", "0")
        environment = " ".join(stage.last("ENV") or "" for stage in lineage(STAGES, target))
        assert "AUTH_MODE=accounts" in environment, target


def test_the_scripts_the_images_run_are_copied_into_them() -> None:
    for target in ("web", "worker", "gpu-worker"):
        copies = [copy for stage in lineage(STAGES, target) for copy in stage.all("COPY")]
        assert "--chmod=755 deploy/*.sh deploy/" in copies, target
        assert f"{inherited(STAGES, target, 'WORKDIR')}/deploy/" == IMAGE_DEPLOY_DIR


def test_the_web_image_installs_no_tensorflow() -> None:
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]
    assert not [d for d in project["dependencies"] if d.lower().startswith("tensorflow")]
    installs = " ".join(run for stage in lineage(STAGES, "web") for run in stage.all("RUN"))
    assert "requirements-worker" not in installs and "[worker]" not in installs and "[gpu]" not in installs
    assert "find_spec('tensorflow')" in installs


def test_the_worker_images_get_tensorflow_of_the_pinned_release() -> None:
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]
    # The worker extra: one TensorFlow pin, and the speech extra for transcribing recordings.
    (pin,) = [d for d in project["optional-dependencies"]["worker"] if d.lower().startswith("tensorflow")]
    assert "tiercards[speech]" in project["optional-dependencies"]["worker"]
    package, version = pin.split("==")
    assert package == "tensorflow-cpu"
    assert "[worker]" in " ".join(STAGES["worker"].all("RUN"))
    assert STAGES["gpu-worker"].base == f"tensorflow/tensorflow:{version}-gpu"
    # No worker extra there: the base image's TensorFlow (built for its CUDA) is the only one;
    # the speech extra brings no TensorFlow.
    gpu_installs = " ".join(STAGES["gpu-worker"].all("RUN"))
    assert "[worker]" not in gpu_installs and "[speech]" in gpu_installs


def test_only_the_proxy_publishes_a_port() -> None:
    assert [name for name, service in SERVICES.items() if service.get("ports")] == ["proxy"]
    assert not [name for name, service in SERVICES.items() if service.get("network_mode") == "host"]
    assert SERVICES["proxy"]["ports"] == ["443:443"]


def test_the_web_replicas_trust_the_proxy_and_nothing_else() -> None:
    front = DOCUMENT["networks"]["front"]["ipam"]["config"][0]["subnet"]
    proxy_address = ipaddress.ip_address(SERVICES["proxy"]["networks"]["front"]["ipv4_address"])
    assert proxy_address in ipaddress.ip_network(front)
    trusted = TIERCARDS["web"]["environment"]["TRUSTED_PROXIES"].split(",")
    assert [ipaddress.ip_network(item) for item in trusted] == [ipaddress.ip_network(proxy_address)]
    assert "front" in SERVICES["web"]["networks"] and "front" not in SERVICES["worker"]["networks"]
    for name in ("postgres", "redis"):
        assert SERVICES[name]["networks"] == ["back"]


def _nginx_directives() -> list[str]:
    text = re.sub(r"#[^\n]*", "", NGINX_CONF.read_text())
    return [" ".join(statement.split()) for statement in re.split(r"[;{}]", text) if statement.strip()]


def test_nginx_passes_the_forwarded_headers_to_the_web_service() -> None:
    directives = _nginx_directives()
    assert "proxy_set_header Host $host" in directives
    assert "proxy_set_header X-Forwarded-Proto $scheme" in directives
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for" in directives
    (upstream,) = [d.split()[1] for d in directives if d.startswith("upstream ")]
    assert f"proxy_pass http://{upstream}" in directives
    servers = [d.split()[1] for d in directives if d.startswith("server ") and ":" in d]
    # Where start-web.sh listens in the container: its --port default.
    (serve,) = tiercards_invocations(PROJECT_ROOT / "deploy" / "start-web.sh")
    assert servers == [f"web:{serve[serve.index('--port') + 1]}"]
    assert f"{serve[serve.index('--port') + 1]}" in (STAGES["web"].last("EXPOSE") or "")


def test_nginx_drops_an_idle_connection_to_a_replica_before_the_replica_does() -> None:
    # Otherwise nginx may send a request down a connection uvicorn is just closing: a 502 (seen
    # under load in bench/faults.py before this setting).
    directives = _nginx_directives()
    assert any(d.startswith("keepalive ") for d in directives)
    (timeout,) = [d.split()[1] for d in directives if d.startswith("keepalive_timeout ")]
    assert float(timeout.removesuffix("s")) < uvicorn.Config("app.main:create_app").timeout_keep_alive


def test_nginx_listens_on_the_published_port_with_the_mounted_certificate() -> None:
    directives = _nginx_directives()
    assert "listen 443 ssl" in directives
    proxy = SERVICES["proxy"]
    mounts = dict(volume.split(":")[:2][::-1] for volume in proxy["volumes"])
    assert mounts["/etc/nginx/conf.d/default.conf"] == "./deploy/nginx/tiercards.conf"
    for directive in ("ssl_certificate", "ssl_certificate_key"):
        (path,) = [d.split()[1] for d in directives if d.split()[0] == directive]
        assert Path(path).parent.as_posix() in mounts, f"{path} is not in a mounted folder"


def test_the_gpu_profile_reserves_nvidia_devices() -> None:
    gpu = SERVICES["gpu-worker"]
    assert gpu["profiles"] == ["gpu"]
    assert gpu["build"]["target"] == "gpu-worker"
    assert gpu["deploy"]["resources"]["reservations"]["devices"] == [
        {"driver": "nvidia", "count": "all", "capabilities": ["gpu"]}
    ]
    # Everything else starts with a plain `docker compose up`.
    assert [name for name, service in SERVICES.items() if service.get("profiles")] == ["gpu-worker"]


def test_local_state_secrets_and_caches_never_enter_the_build_context() -> None:
    for path in (
        ".venv/bin/python",
        "data/tiercards.db",
        "screenshots/library.png",
        ".env",
        "deploy/tls/privkey.pem",
        ".git/HEAD",
        ".mypy_cache/3.11/app.json",
        ".pytest_cache/v/cache/nodeids",
        ".ruff_cache/CACHEDIR.TAG",
        ".hypothesis/examples/x",
        "build/lib/app/__init__.py",
        "tiercards.egg-info/PKG-INFO",
        "app/__pycache__/cli.cpython-311.pyc",
        "migrations/versions/__pycache__/0001.cpython-311.pyc",
        "tests/accounts/oidc_provider/node_modules/x.js",
    ):
        assert not in_build_context(path), f"{path} would enter the build context"
    needed = ["pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "alembic.ini"]
    for folder in ("app", "templates", "static", "migrations", "content"):
        needed += [
            p.relative_to(PROJECT_ROOT).as_posix()
            for p in (PROJECT_ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        ]
    needed += [p.relative_to(PROJECT_ROOT).as_posix() for p in (PROJECT_ROOT / "deploy").glob("*.sh")]
    missing = [path for path in needed if not in_build_context(path)]
    assert not missing, f"the build needs these, but .dockerignore leaves them out: {missing}"
