"""compose.yaml, compose.debian.yaml, the Dockerfiles, .dockerignore and the nginx template,
checked against the app.

These read the files as Docker would (tests/containers/ runs the real containers) and hold them to
what the app really has: every environment variable a tiercards container gets is a setting the
app reads, and is valid for it, or a variable its start-up script reads; every command an image
runs is a real `tiercards` command; every target compose builds is a stage of the Dockerfile. They
hold the topology to itself: every service on the host's network, listening on 127.0.0.1 on the
port the others are told to reach it on, and nginx sending requests to exactly the two replicas'
ports. The GPU worker image is the CPU worker's but for its TensorFlow, and the Debian override
stands in for every image compose.yaml pulls. tests/deploy/test_start_scripts.py runs the same
start-up scripts and nginx template against a real PostgreSQL, Redis and nginx.
"""

import ipaddress
import os
import re
import shlex
import subprocess
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import uvicorn
from packaging.requirements import Requirement
from sqlalchemy.engine import make_url

from app import PROJECT_ROOT
from app.settings import Settings
from tests.deploy.deployment import (
    COMPOSE_DEBIAN_FILE,
    DEBIAN_DOCKERFILE,
    DOCKERFILE,
    IMAGE_DEPLOY_DIR,
    NGINX_TEMPLATE,
    MissingVariable,
    check_cli,
    compose,
    dockerfile,
    envsubst,
    in_build_context,
    inherited,
    lineage,
    merged,
    nginx_directives,
    requirements_files,
    script_path,
    service_command,
    service_health_check,
    tiercards_invocations,
    tiercards_services,
    web_replicas,
)

pytestmark = pytest.mark.engine_agnostic

VARIABLES = {
    "SECRET_KEY": "5f0c8e2a9b7d4c61a3e8f2b0d9c7a6e54b3f1e0d2c8a7b69",
    "POSTGRES_PASSWORD": "0a9b8c7d6e5f4a3b",
    "REDIS_PASSWORD": "c4e1a7b93d0f6e28a5b1c9d7e3f0a2b4",
    "PUBLIC_HOST": "cards.example.org",
}
# Every port and address an operator may change, changed.
PORTS = {
    "POSTGRES_PORT": "15432",
    "REDIS_PORT": "16379",
    "WEB_PORT_1": "18001",
    "WEB_PORT_2": "18002",
    "HTTPS_ADDRESS": "203.0.113.5",
    "HTTPS_PORT": "8443",
}
DOCUMENT = compose(VARIABLES)
SERVICES = DOCUMENT["services"]
TIERCARDS = tiercards_services(DOCUMENT)
REPLICAS = web_replicas(DOCUMENT)
ARGS, STAGES = dockerfile()
SETTING_NAMES = {name.upper() for name in Settings.model_fields}
START_WEB = PROJECT_ROOT / "deploy" / "start-web.sh"
# What start-web.sh reads besides the settings: where the replica listens.
START_WEB_VARIABLES = {"HOST", "PORT"}
LOOPBACK = "127.0.0.1"


def _settings_from(environment: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Settings:
    for name in SETTING_NAMES:
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, str(value))
    return Settings(_env_file=None)


def _settings_environment(name: str) -> dict[str, str]:
    """A tiercards service's environment without what only its start-up script reads."""
    environment: dict[str, str] = TIERCARDS[name]["environment"]
    skipped = START_WEB_VARIABLES if name in REPLICAS else set()
    return {key: value for key, value in environment.items() if key not in skipped}


def _options(command: list[str], program: str) -> list[tuple[str, str]]:
    """A server's command line as (option, value) pairs, every option taking one value."""
    assert command[0] == program and len(command) % 2 == 1, command
    return list(zip(command[1::2], command[2::2], strict=True))


def _postgres_port(document: dict[str, Any]) -> int:
    return int(document["services"]["postgres"]["environment"]["PGPORT"])


def _redis_script(document: dict[str, Any]) -> str:
    """The shell script the redis service runs (`sh -c`), as the container's shell gets it."""
    command = document["services"]["redis"]["command"]
    assert command[:2] == ["sh", "-c"] and len(command) == 3, command
    script: str = command[2]
    return script


def _redis_server(document: dict[str, Any]) -> list[str]:
    """The redis-server command line the redis service's script ends in, with the service's
    environment put in: redis-server, its config file, then its options."""
    (line,) = [line for line in _redis_script(document).splitlines() if "redis-server" in line]
    words = shlex.split(line)
    assert words[:2] == ["exec", "redis-server"], line
    return [envsubst(word, document["services"]["redis"]["environment"]) for word in words[1:]]


def _redis_options(document: dict[str, Any]) -> dict[str, str]:
    server = _redis_server(document)
    assert server[1].endswith(".conf"), server
    return dict(_options([server[0], *server[2:]], "redis-server"))


def _redis_health_check(document: dict[str, Any]) -> list[str]:
    """The redis-cli command line of the redis service's health check, with the service's
    environment put in. The check passes only when it answers PONG: redis-cli exits 0 on a
    refusal too."""
    test = document["services"]["redis"]["healthcheck"]["test"]
    assert test[0] == "CMD-SHELL" and len(test) == 2, test
    found = re.fullmatch(r'\[ "\$\((redis-cli [^)]*)\)" = PONG \]', test[1])
    assert found, test
    return [envsubst(word, document["services"]["redis"]["environment"]) for word in shlex.split(found[1])]


def _proxy_conf(document: dict[str, Any]) -> list[str]:
    """The nginx config the proxy runs: the template with the proxy service's environment put in."""
    return nginx_directives(
        envsubst(NGINX_TEMPLATE.read_text(), document["services"]["proxy"]["environment"])
    )


def _upstream_servers(directives: list[str]) -> list[str]:
    return [d.split()[1] for d in directives if d.startswith("server ")]


def _pin(requirements: list[str], package: str) -> Requirement:
    """The one requirement of a list naming a package of this name."""
    (found,) = [Requirement(r) for r in requirements if Requirement(r).name.startswith(package)]
    return found


def test_the_deployment_has_every_part() -> None:
    assert set(SERVICES) == {"postgres", "redis", "migrate", "web", "web-2", "worker", "gpu-worker", "proxy"}
    assert set(TIERCARDS) == {"migrate", "web", "web-2", "worker", "gpu-worker"}
    assert set(REPLICAS) == {"web", "web-2"}
    # Only this repository's images are built; the rest are pulled (or compose.debian.yaml's).
    assert {name for name, service in SERVICES.items() if "build" in service} == set(TIERCARDS)
    # Replicas are services of their own (each needs a port on the host), never deploy.replicas.
    assert not [name for name, service in SERVICES.items() if "replicas" in service.get("deploy", {})]
    # docker-compose 1.29 refuses a top-level name.
    assert "name" not in DOCUMENT


@pytest.mark.parametrize("name", sorted(TIERCARDS))
def test_every_variable_a_tiercards_container_gets_is_a_valid_setting(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    environment = _settings_environment(name)
    unknown = sorted(set(environment) - SETTING_NAMES)
    assert not unknown, f"{name}: not settings of the app (app/settings.py): {unknown}"
    settings = _settings_from(environment, monkeypatch)
    assert settings.is_production and settings.auth_mode == "accounts"
    assert settings.allowed_hosts == ["cards.example.org"]
    database = make_url(settings.database_url)
    assert database.drivername == "postgresql+psycopg" and database.host == LOOPBACK
    assert database.password == VARIABLES["POSTGRES_PASSWORD"]
    queue = urlsplit(settings.queue_url)
    assert (queue.scheme, queue.hostname, queue.password) == ("redis", LOOPBACK, VARIABLES["REDIS_PASSWORD"])


@pytest.mark.parametrize("name", sorted(REPLICAS))
def test_a_web_replica_s_other_variables_are_the_ones_start_web_reads(name: str) -> None:
    environment = TIERCARDS[name]["environment"]
    assert set(environment) - SETTING_NAMES == START_WEB_VARIABLES
    script = script_path(service_command(DOCUMENT, name))
    assert script == START_WEB
    # start-web.sh reads exactly these (with a default each), and they reach `tiercards serve`.
    assert {
        found[0] for found in re.findall(r"\$\{(\w+):-([^}]*)\}", script.read_text())
    } == START_WEB_VARIABLES
    (serve,) = tiercards_invocations(script, environment)
    check_cli(serve)
    assert serve == ["tiercards", "serve", "--no-worker", "--host", LOOPBACK, "--port", environment["PORT"]]


def test_the_services_find_postgres_and_redis_with_the_credentials_each_server_is_given() -> None:
    environment = TIERCARDS["web"]["environment"]
    postgres = SERVICES["postgres"]["environment"]
    url = make_url(environment["DATABASE_URL"])
    assert (url.username, url.password, url.database) == (
        postgres["POSTGRES_USER"],
        postgres["POSTGRES_PASSWORD"],
        postgres["POSTGRES_DB"],
    )
    # Redis's default user, whose password the server and its health check read.
    redis = SERVICES["redis"]["environment"]
    queue = urlsplit(environment["QUEUE_URL"])
    assert (queue.username, queue.password) == ("", redis["REDIS_PASSWORD"])
    assert redis["REDISCLI_AUTH"] == redis["REDIS_PASSWORD"] == VARIABLES["REDIS_PASSWORD"]
    for name in TIERCARDS:
        depends = TIERCARDS[name]["depends_on"]
        assert set(depends) & {"postgres", "migrate"}, f"{name} starts before the database is there"


@pytest.mark.parametrize("variables", [VARIABLES, {**VARIABLES, **PORTS}], ids=["defaults", "ports-set"])
def test_postgres_and_redis_listen_on_loopback_on_the_ports_the_others_reach(
    variables: dict[str, str],
) -> None:
    document = compose(variables)
    postgres = document["services"]["postgres"]
    postgres_port = _postgres_port(document)
    assert str(postgres_port) == variables.get("POSTGRES_PORT", "5432")
    # PostgreSQL listens where listen_addresses and PGPORT say; pg_isready asks PGPORT too.
    options = _options(postgres["command"], "postgres")
    assert [flag for flag, _ in options] == ["-c"] * len(options)
    assert dict(value.split("=", 1) for _, value in options)["listen_addresses"] == LOOPBACK
    assert postgres["healthcheck"]["test"][:3] == ["CMD", "pg_isready", f"--host={LOOPBACK}"]
    assert not [word for word in postgres["healthcheck"]["test"] if word.startswith(("--port", "-p"))]

    redis_options = _redis_options(document)
    assert redis_options["--bind"] == LOOPBACK
    assert redis_options["--port"] == variables.get("REDIS_PORT", "6379")
    # The health check asks on loopback (redis-cli's default host), on the server's port.
    check = _redis_health_check(document)
    assert check[0] == "redis-cli" and check[-1] == "ping" and "-h" not in check
    assert check[check.index("-p") + 1] == redis_options["--port"]

    for name, service in tiercards_services(document).items():
        database = make_url(service["environment"]["DATABASE_URL"])
        assert (database.host, database.port) == (LOOPBACK, postgres_port), name
        queue = make_url(service["environment"]["QUEUE_URL"])
        assert (queue.drivername, queue.host, queue.port) == ("redis", LOOPBACK, int(redis_options["--port"]))


@pytest.mark.parametrize("variable", ["SECRET_KEY", "POSTGRES_PASSWORD", "REDIS_PASSWORD"])
def test_compose_refuses_to_start_without_a_secret(variable: str) -> None:
    without = {name: value for name, value in VARIABLES.items() if name != variable}
    with pytest.raises(MissingVariable, match=variable):
        compose(without)
    with pytest.raises(MissingVariable, match=variable):
        compose({**without, variable: ""})


def _run_redis_script(folder: Path, password: str) -> subprocess.CompletedProcess[str]:
    """The redis service's script under this machine's sh, its config file written into `folder`
    and a stand-in redis-server that writes down its command line there."""
    server = _redis_server(DOCUMENT)
    script = _redis_script(DOCUMENT).replace(os.path.dirname(server[1]), str(folder))
    stand_in = folder / "bin" / "redis-server"
    stand_in.parent.mkdir(exist_ok=True)
    stand_in.write_text(f'#!/bin/sh\nprintf "%s\\n" "$0" "$@" >"{folder}/command-line"\n')
    stand_in.chmod(0o755)
    environment = {
        **SERVICES["redis"]["environment"],
        "REDIS_PASSWORD": password,
        "PATH": f"{stand_in.parent}{os.pathsep}{os.environ['PATH']}",
    }
    return subprocess.run(
        ["sh", "-c", script], env=environment, capture_output=True, text=True, timeout=30, check=False
    )


def test_redis_reads_its_password_from_a_file_of_its_own_never_from_a_command_line(tmp_path: Path) -> None:
    password = VARIABLES["REDIS_PASSWORD"]
    ran = _run_redis_script(tmp_path, password)
    assert ran.returncode == 0, ran.stderr
    config = tmp_path / Path(_redis_server(DOCUMENT)[1]).name
    assert config.read_text().splitlines() == [f"requirepass {password}"]
    assert config.stat().st_mode & 0o777 == 0o600
    command_line = (tmp_path / "command-line").read_text()
    assert str(config) in command_line.splitlines() and password not in command_line
    # Nor is it on any other command line compose gives: each service's, and the health checks'.
    for name in SERVICES:
        assert password not in " ".join(SERVICES[name].get("command", [])), name
        assert password not in " ".join(SERVICES[name].get("healthcheck", {}).get("test", [])), name
    # Never -a: redis-cli reads REDISCLI_AUTH from the environment the health check runs in.
    assert "-a" not in _redis_health_check(DOCUMENT)
    assert SERVICES["redis"]["environment"]["REDISCLI_AUTH"] == password


@pytest.mark.parametrize("password", ["with space", "at@sign", "a/slash", "pass#word", "per%cent"])
def test_redis_refuses_a_password_that_would_not_survive_queue_url(password: str, tmp_path: Path) -> None:
    ran = _run_redis_script(tmp_path, password)
    assert ran.returncode == 1 and "REDIS_PASSWORD" in ran.stderr
    assert not (tmp_path / "command-line").exists()


def test_one_shared_environment_for_every_tiercards_container() -> None:
    environments = [_settings_environment(name) for name in TIERCARDS]
    assert all(environment == environments[0] for environment in environments)
    # Only the replicas are told where to listen.
    assert not [
        name
        for name in set(TIERCARDS) - set(REPLICAS)
        if set(TIERCARDS[name]["environment"]) & START_WEB_VARIABLES
    ]


def test_every_service_shares_the_host_s_network_and_publishes_nothing() -> None:
    assert {name: service.get("network_mode") for name, service in SERVICES.items()} == dict.fromkeys(
        SERVICES, "host"
    )
    assert not [name for name, service in SERVICES.items() if {"ports", "networks", "expose"} & set(service)]
    assert "networks" not in DOCUMENT
    # The images are built on the host's network too (no bridge to fetch packages through).
    assert {name: service["build"].get("network") for name, service in TIERCARDS.items()} == dict.fromkeys(
        TIERCARDS, "host"
    )


@pytest.mark.parametrize("variables", [VARIABLES, {**VARIABLES, **PORTS}], ids=["defaults", "ports-set"])
def test_two_web_replicas_from_one_image_on_ports_of_their_own_behind_nginx(
    variables: dict[str, str],
) -> None:
    document = compose(variables)
    replicas = web_replicas(document)
    web, web_2 = replicas["web"], replicas["web-2"]
    # The same image, built once, run twice.
    assert (web["build"], web["image"]) == (web_2["build"], web_2["image"])
    assert web["build"]["target"] == "web"
    assert {name: service["hostname"] for name, service in replicas.items()} == {
        "web": "web-1",
        "web-2": "web-2",
    }
    listening = [
        f"{service['environment']['HOST']}:{service['environment']['PORT']}" for service in replicas.values()
    ]
    assert listening == [
        f"{LOOPBACK}:{variables.get('WEB_PORT_1', '8001')}",
        f"{LOOPBACK}:{variables.get('WEB_PORT_2', '8002')}",
    ]
    # nginx sends requests to exactly those two, and to nothing the others listen on.
    directives = _proxy_conf(document)
    (upstream,) = [d.split()[1] for d in directives if d.startswith("upstream ")]
    assert _upstream_servers(directives) == listening
    assert directives.count(f"proxy_pass http://{upstream}") == len(
        [d for d in directives if d.startswith("proxy_pass ")]
    )
    taken = [str(_postgres_port(document)), _redis_options(document)["--port"]]
    assert len({*taken, *(address.split(":")[1] for address in listening)}) == 4


@pytest.mark.parametrize("variables", [VARIABLES, {**VARIABLES, **PORTS}], ids=["defaults", "ports-set"])
def test_nginx_listens_on_https_listen_with_the_mounted_certificate(variables: dict[str, str]) -> None:
    document = compose(variables)
    proxy = document["services"]["proxy"]
    directives = _proxy_conf(document)
    assert [d for d in directives if d.startswith("listen ")] == [
        f"listen {variables.get('HTTPS_ADDRESS', '*')}:{variables.get('HTTPS_PORT', '443')} ssl"
    ]
    # The official image renders /etc/nginx/templates/NAME.template into /etc/nginx/conf.d/NAME.
    mounts = dict(volume.split(":")[:2][::-1] for volume in proxy["volumes"])
    assert mounts["/etc/nginx/templates/default.conf.template"] == "./deploy/nginx/tiercards.conf.template"
    assert (PROJECT_ROOT / mounts["/etc/nginx/templates/default.conf.template"]) == NGINX_TEMPLATE
    for directive in ("ssl_certificate", "ssl_certificate_key"):
        (path,) = [d.split()[1] for d in directives if d.split()[0] == directive]
        assert Path(path).parent.as_posix() in mounts, f"{path} is not in a mounted folder"


def test_the_template_s_variables_are_the_proxy_s_environment_and_nginx_s_are_left_alone() -> None:
    template = NGINX_TEMPLATE.read_text()
    environment = SERVICES["proxy"]["environment"]
    braced = set(re.findall(r"\$\{(\w+)\}", template))
    assert braced == set(environment) == {"HTTPS_ADDRESS", "HTTPS_PORT", "WEB_PORT_1", "WEB_PORT_2"}
    # nginx's own variables: lowercase, never a name of the environment the template step reads.
    own = set(re.findall(r"\$([A-Za-z_]\w*)", template))
    assert own and all(name.islower() for name in own) and not own & set(environment)
    rendered = envsubst(template, environment)
    assert "${" not in rendered and set(re.findall(r"\$([A-Za-z_]\w*)", rendered)) == own


def test_the_web_replicas_believe_forwarded_headers_from_loopback_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # nginx shares the host's network: it connects to the replicas from 127.0.0.1.
    for name in REPLICAS:
        assert TIERCARDS[name]["environment"]["TRUSTED_PROXIES"] == "127.0.0.1/32", name
    settings = _settings_from(_settings_environment("web"), monkeypatch)
    assert settings.trusted_proxies == [ipaddress.ip_network("127.0.0.1/32")]
    directives = _proxy_conf(DOCUMENT)
    assert all(server.split(":")[0] == LOOPBACK for server in _upstream_servers(directives))


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
    for name in set(TIERCARDS) - {"migrate"}:
        depends = SERVICES[name]["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully"
        assert depends["redis"]["condition"] == "service_healthy"
    assert SERVICES["proxy"]["depends_on"] == {name: {"condition": "service_healthy"} for name in REPLICAS}


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
        "web-2": ["serve", "--no-worker"],
        "worker": ["worker"],
        "gpu-worker": ["worker"],
    }


def test_compose_builds_only_stages_the_dockerfile_has() -> None:
    for name, service in TIERCARDS.items():
        assert service["build"]["target"] in STAGES, f"{name}: no stage {service['build']['target']}"
    assert {service["build"]["target"] for service in TIERCARDS.values()} == {"web", "worker"}
    assert {"builder", "runtime", "web", "worker"} == set(STAGES)


def test_an_image_name_stands_for_one_build() -> None:
    builds: dict[str, list[dict[str, Any]]] = {}
    for service in TIERCARDS.values():
        builds.setdefault(service["image"], []).append(service["build"])
    assert all(build == found[0] for found in builds.values() for build in found)
    assert set(builds) == {"tiercards:web", "tiercards:worker", "tiercards:gpu-worker"}


@pytest.mark.parametrize("path", [DOCKERFILE, DEBIAN_DOCKERFILE], ids=["Dockerfile", "deploy/debian"])
def test_the_dockerfiles_build_with_the_classic_builder_too(path: Path) -> None:
    # No `# syntax` directive and none of BuildKit's own instructions (a heredoc is refused by the
    # parser): Debian's docker.io builds without BuildKit.
    assert not [line for line in path.read_text().splitlines() if re.match(r"#\s*syntax\s*=", line)]
    _, stages = dockerfile(path)
    for stage in stages.values():
        for instruction, arguments in stage.instructions:
            if instruction == "RUN":
                assert not arguments.startswith("--"), f"{stage.name}: RUN {arguments}"
            if instruction in ("COPY", "ADD"):
                options = [word for word in shlex.split(arguments) if word.startswith("--")]
                assert all(option.startswith("--from=") for option in options), f"{stage.name}: {arguments}"


def test_the_web_replicas_and_workers_have_health_checks_that_exist() -> None:
    checks = {name: service_health_check(DOCUMENT, name) for name in set(TIERCARDS) - {"migrate"}}
    # Liveness of the replica (tests/deploy/test_start_scripts.py runs it against one).
    assert checks["web"] == checks["web-2"] == [f"{IMAGE_DEPLOY_DIR}healthcheck-web.sh"]
    assert "/healthz" in script_path(checks["web"]).read_text()
    # A worker is healthy while it beats.
    assert checks["worker"] == checks["gpu-worker"] == ["tiercards", "demo", "workers", "--here"]
    check_cli(checks["worker"])


@pytest.mark.parametrize("name", ["postgres", "redis"])
def test_postgres_and_redis_have_health_checks(name: str) -> None:
    # Redis's in a shell, which tells a refusal from PONG.
    assert SERVICES[name]["healthcheck"]["test"][0] == {"postgres": "CMD", "redis": "CMD-SHELL"}[name]


def test_images_run_as_an_unprivileged_user_in_accounts_mode() -> None:
    for target in ("web", "worker"):
        assert inherited(STAGES, target, "USER") not in (None, "root", "0")
        environment = " ".join(stage.last("ENV") or "" for stage in lineage(STAGES, target))
        assert "AUTH_MODE=accounts" in environment, target


def test_the_scripts_the_images_run_are_copied_into_them() -> None:
    for target in ("web", "worker"):
        copies = [copy for stage in lineage(STAGES, target) for copy in stage.all("COPY")]
        assert "deploy/*.sh deploy/" in copies, target
        assert f"{inherited(STAGES, target, 'WORKDIR')}/deploy/" == IMAGE_DEPLOY_DIR
    # COPY keeps the build context's file modes (no --chmod): the scripts must be executable here.
    scripts = sorted((PROJECT_ROOT / "deploy").glob("*.sh"))
    assert scripts and not [script.name for script in scripts if not script.stat().st_mode & 0o111]


def test_the_web_image_installs_no_tensorflow(tmp_path: Path) -> None:
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]
    assert not [d for d in project["dependencies"] if d.lower().startswith("tensorflow")]
    assert not [line for line in requirements_files(tmp_path)["web"] if line.lower().startswith("tensorflow")]
    web = STAGES["web"]
    assert "--from=builder /requirements/web.txt /tmp/requirements.txt" in web.all("COPY")
    runs = [run for stage in lineage(STAGES, "web") for run in stage.all("RUN")]
    installs = [part.strip() for run in runs for part in run.split("&&") if "pip install" in part]
    assert installs and not [install for install in installs if "[" in install], (
        "the web image installs an extra"
    )
    assert "find_spec('tensorflow')" in " ".join(runs)


def test_the_worker_images_get_tensorflow_of_the_pinned_release() -> None:
    extras = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    # The worker extra: one TensorFlow pin, and the speech extra for transcribing recordings.
    cpu = _pin(extras["worker"], "tensorflow")
    assert cpu.name == "tensorflow-cpu" and str(cpu.specifier).startswith("==")
    assert "tiercards[speech]" in extras["worker"] and "tiercards[speech]" in extras["gpu"]
    gpu = _pin(extras["gpu"], "tensorflow")
    assert (gpu.name, gpu.extras, gpu.specifier) == ("tensorflow", {"and-cuda"}, cpu.specifier)
    # The worker stage as `docker build --target worker` (no build argument) builds it: the CPU one.
    assert STAGES["worker"].args == {"WORKER_EXTRA": "worker"}
    assert '"$(echo /tmp/wheels/tiercards-*.whl)[worker]"' in " ".join(
        arguments for name, arguments in STAGES["worker"].resolved() if name == "RUN"
    )


def test_the_gpu_worker_service_is_the_worker_service_but_for_its_tensorflow() -> None:
    worker, gpu = SERVICES["worker"], SERVICES["gpu-worker"]
    assert worker["build"]["args"] == {"WORKER_EXTRA": "worker"}
    assert gpu["build"] == {**worker["build"], "args": {**worker["build"]["args"], "WORKER_EXTRA": "gpu"}}
    # Everything else the same (environment, volumes, network, init, restart, start order) but
    # the image's name, the host name its health check asks under and what the GPU needs.
    differing = {key for key in set(worker) | set(gpu) if worker.get(key) != gpu.get(key)}
    assert differing == {"build", "image", "hostname", "profiles", "deploy"}
    assert set(gpu) - set(worker) == {"profiles", "deploy"} and not set(worker) - set(gpu)
    assert worker["init"] is True and worker["restart"] == "unless-stopped"
    assert service_command(DOCUMENT, "worker") == service_command(DOCUMENT, "gpu-worker")
    assert service_health_check(DOCUMENT, "worker") == service_health_check(DOCUMENT, "gpu-worker")


def test_worker_extra_chooses_the_requirements_file_and_the_extra_alone() -> None:
    # Declared in the worker stage only, where it picks the builder's list and the wheel's extra.
    assert "WORKER_EXTRA" not in ARGS
    assert [name for name, stage in STAGES.items() if "WORKER_EXTRA" in stage.args] == ["worker"]
    using = [
        (name, arguments)
        for stage in STAGES.values()
        for name, arguments in stage.instructions
        if "WORKER_EXTRA" in arguments and name != "ARG"
    ]
    assert using == [
        ("COPY", "--from=builder /requirements/${WORKER_EXTRA}.txt /tmp/requirements.txt"),
        (
            "RUN",
            'pip install --quiet "$(echo /tmp/wheels/tiercards-*.whl)[${WORKER_EXTRA}]" && rm -rf /tmp/wheels '
            '&& pip check && python3 -c "import tensorflow"',
        ),
    ]
    # Built as compose builds each: every line the same but those two, and those only in the name.
    built = {
        name: lineage(dockerfile(build_args=SERVICES[name]["build"]["args"])[1], "worker")
        for name in ("worker", "gpu-worker")
    }
    cpu_lines = [(stage.base, line) for stage in built["worker"] for line in stage.resolved()]
    gpu_lines = [(stage.base, line) for stage in built["gpu-worker"] for line in stage.resolved()]
    assert len(cpu_lines) == len(gpu_lines)
    different = [(cpu, gpu) for cpu, gpu in zip(cpu_lines, gpu_lines, strict=True) if cpu != gpu]
    assert [(cpu[1][1], gpu[1][1]) for cpu, gpu in different] == [
        (
            "--from=builder /requirements/worker.txt /tmp/requirements.txt",
            "--from=builder /requirements/gpu.txt /tmp/requirements.txt",
        ),
        (
            'pip install --quiet "$(echo /tmp/wheels/tiercards-*.whl)[worker]" && rm -rf /tmp/wheels '
            '&& pip check && python3 -c "import tensorflow"',
            'pip install --quiet "$(echo /tmp/wheels/tiercards-*.whl)[gpu]" && rm -rf /tmp/wheels '
            '&& pip check && python3 -c "import tensorflow"',
        ),
    ]


def test_the_gpu_and_worker_extras_differ_in_their_tensorflow_alone() -> None:
    extras = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    (cpu,) = set(extras["worker"]) - set(extras["gpu"])
    (gpu,) = set(extras["gpu"]) - set(extras["worker"])
    assert _pin([cpu], "tensorflow").specifier == _pin([gpu], "tensorflow").specifier
    assert len(extras["worker"]) == len(set(extras["worker"])) == len(extras["gpu"])


def test_the_requirements_files_for_worker_and_gpu_differ_in_the_tensorflow_line_alone(
    tmp_path: Path,
) -> None:
    # The builder runs deploy/requirements.py on pyproject.toml into /requirements, where the
    # worker stage takes its list from.
    builder = STAGES["builder"]
    assert builder.all("COPY")[0] == "pyproject.toml deploy/requirements.py ./"
    assert "python3 requirements.py pyproject.toml /requirements" in builder.all("RUN")
    files = requirements_files(tmp_path)
    assert set(files) == {"web", "worker", "gpu"}
    worker, gpu = files["worker"], files["gpu"]
    assert len(worker) == len(gpu)
    (different,) = [(cpu, cuda) for cpu, cuda in zip(worker, gpu, strict=True) if cpu != cuda]
    cpu_pin, gpu_pin = (Requirement(line) for line in different)
    assert (cpu_pin.name, gpu_pin.name) == ("tensorflow-cpu", "tensorflow")
    assert cpu_pin.specifier == gpu_pin.specifier
    # The web list first, then the extra's own (the speech extra put in, never tiercards itself).
    for lines in (worker, gpu):
        assert lines[: len(files["web"])] == files["web"]
        assert not [line for line in lines if Requirement(line).name == "tiercards"]
    speech = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"][
        "speech"
    ]
    assert set(speech) <= set(worker)


def test_the_debian_override_stands_in_for_every_pulled_image() -> None:
    override = compose({}, COMPOSE_DEBIAN_FILE)
    changed = override["services"]
    assert set(changed) <= set(SERVICES), "the override names services compose.yaml lacks"
    _, debian_stages = dockerfile(DEBIAN_DOCKERFILE)
    pulled = {name for name in SERVICES if name not in TIERCARDS}
    assert pulled == {"postgres", "redis", "proxy"}
    given_images = {name for name, service in changed.items() if "image" in service}
    assert given_images == pulled
    for name in given_images:
        build = changed[name]["build"]
        assert (build["context"], build["network"]) == ("deploy/debian", "host"), name
        assert build["target"] in debian_stages, f"{name}: deploy/debian/Dockerfile has no {build['target']}"
        assert changed[name]["image"].startswith("tiercards-local/"), name
    # What the Debian stages copy is in deploy/debian, executable (COPY keeps the mode).
    for stage in debian_stages.values():
        for copy in stage.all("COPY"):
            source = DEBIAN_DOCKERFILE.parent / copy.split()[0]
            assert source.is_file() and source.stat().st_mode & 0o111, source
    # The nginx stand-in renders the folder of templates the proxy mounts its config into.
    (entrypoint,) = debian_stages[changed["proxy"]["build"]["target"]].all("COPY")
    script = (DEBIAN_DOCKERFILE.parent / entrypoint.split()[0]).read_text()
    assert "/etc/nginx/templates/*.template" in script and "envsubst" in script


def _debian_python_image() -> str:
    """The tag scripts/build-debian-images.sh gives the Python image it builds."""
    for line in (PROJECT_ROOT / "scripts" / "build-debian-images.sh").read_text().splitlines():
        if not line.startswith("docker build "):
            continue
        words = shlex.split(line, comments=True)
        if words[words.index("--target") + 1] == "python":
            assert "deploy/debian" in words, words  # the build context: deploy/debian/Dockerfile
            return words[words.index("-t") + 1]
    raise AssertionError("scripts/build-debian-images.sh builds no python image")


def test_the_debian_override_builds_the_tiercards_images_on_debian_s_python() -> None:
    python_image = _debian_python_image()
    assert python_image.startswith("tiercards-local/python:")
    _, debian_stages = dockerfile(DEBIAN_DOCKERFILE)
    assert "python" in debian_stages
    override = compose({}, COMPOSE_DEBIAN_FILE)
    together = merged(DOCUMENT, compose(VARIABLES, COMPOSE_DEBIAN_FILE))
    given_python = {
        name
        for name, service in override["services"].items()
        if "PYTHON_IMAGE" in service["build"].get("args", {})
    }
    assert given_python == set(TIERCARDS)
    for name, service in TIERCARDS.items():
        build = together["services"][name]["build"]
        # The override adds the base and changes nothing else of the build.
        assert build == {
            **service["build"],
            "args": {**service["build"].get("args", {}), "PYTHON_IMAGE": python_image},
        }
        _, stages = dockerfile(build_args=build["args"])
        assert {stage.base for stage in stages.values()} == {"runtime", python_image}
    # Without the override: the official image of the same Python and the same Debian release.
    assert ARGS["PYTHON_IMAGE"] == "python:3.11-slim-bookworm"
    assert {stage.base for stage in STAGES.values()} == {"python:3.11-slim-bookworm", "runtime"}
    version = python_image.split(":")[1].split("-")[0]
    assert ARGS["PYTHON_IMAGE"].startswith(f"python:{version}-") and python_image.endswith("-bookworm")


@pytest.mark.parametrize(("service", "official"), [("postgres", "postgres"), ("redis", "redis")])
def test_the_official_images_are_of_the_debian_images_major_versions(service: str, official: str) -> None:
    image = SERVICES[service]["image"]
    debian = compose({}, COMPOSE_DEBIAN_FILE)["services"][service]["image"]
    name, _, tag = image.partition(":")
    # An official image: Docker Hub's library, no namespace.
    assert name == official and "/" not in name
    assert tag.split("-")[0] == debian.split(":")[1].split("-")[0], f"{image} and {debian}"
    assert tag.endswith("-bookworm") and debian.endswith("-bookworm")
    assert {"postgres": "15", "redis": "7"}[service] == tag.split("-")[0]


def test_the_debian_postgres_installs_the_major_version_its_tag_names() -> None:
    _, debian_stages = dockerfile(DEBIAN_DOCKERFILE)
    major = compose({}, COMPOSE_DEBIAN_FILE)["services"]["postgres"]["image"].split(":")[1].split("-")[0]
    stage = debian_stages["postgres"]
    assert f"postgresql-{major}" in " ".join(stage.all("RUN")).split()
    assert f"/usr/lib/postgresql/{major}/bin" in (stage.last("ENV") or "")


def test_nginx_passes_the_forwarded_headers_to_the_web_replicas() -> None:
    directives = _proxy_conf(DOCUMENT)
    # With its port: a browser's Origin on a port other than 443 must match the Host the app sees.
    assert "proxy_set_header Host $http_host" in directives
    assert "proxy_set_header X-Forwarded-Proto $scheme" in directives
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for" in directives
    (upstream,) = [d.split()[1] for d in directives if d.startswith("upstream ")]
    assert f"proxy_pass http://{upstream}" in directives
    # One container on its own (`docker run -p 8000:8000`): start-web.sh's default port is the
    # one the web image exposes.
    (serve,) = tiercards_invocations(START_WEB)
    assert STAGES["web"].last("EXPOSE") == serve[serve.index("--port") + 1] == "8000"


def test_nginx_drops_an_idle_connection_to_a_replica_before_the_replica_does() -> None:
    # Otherwise nginx may send a request down a connection uvicorn is just closing: a 502 (seen
    # under load in bench/faults.py before this setting).
    directives = nginx_directives(NGINX_TEMPLATE.read_text())
    assert any(d.startswith("keepalive ") for d in directives)
    (timeout,) = [d.split()[1] for d in directives if d.startswith("keepalive_timeout ")]
    assert float(timeout.removesuffix("s")) < uvicorn.Config("app.main:create_app").timeout_keep_alive


def test_the_gpu_profile_reserves_nvidia_devices() -> None:
    gpu = SERVICES["gpu-worker"]
    assert gpu["profiles"] == ["gpu"]
    assert (gpu["build"]["target"], gpu["build"]["args"]["WORKER_EXTRA"]) == ("worker", "gpu")
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
    needed = [
        "pyproject.toml",
        "setup.py",
        "MANIFEST.in",
        "README.md",
        "alembic.ini",
        "deploy/requirements.py",
    ]
    for folder in ("app", "templates", "static", "migrations", "content"):
        needed += [
            p.relative_to(PROJECT_ROOT).as_posix()
            for p in (PROJECT_ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        ]
    needed += [p.relative_to(PROJECT_ROOT).as_posix() for p in (PROJECT_ROOT / "deploy").glob("*.sh")]
    missing = [path for path in needed if not in_build_context(path)]
    assert not missing, f"the build needs these, but .dockerignore leaves them out: {missing}"
