# syntax=docker/dockerfile:1
# tiercards images, one target each (README, "Docker"; compose.yaml runs them together):
#   web         the web app, without a demo worker and without TensorFlow installed at all
#   worker      a demo and transcription worker on the CPU (tensorflow-cpu and the speech
#               model, the `worker` extra)
#   gpu-worker  the same worker on NVIDIA GPUs, on TensorFlow's own CUDA image (the `speech` extra)
# Each runs a start-up script from deploy/, the same scripts the tests run outside Docker.
#
# A container serves a team on a network, so the images sign people in (AUTH_MODE=accounts):
# single mode has no sign-in and refuses the 0.0.0.0 address a container must listen on.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm
# The same TensorFlow release as the `worker` extra's tensorflow-cpu pin in pyproject.toml.
ARG TENSORFLOW_VERSION=2.21.0

FROM ${PYTHON_IMAGE} AS builder
WORKDIR /src
# The dependency lists on their own, first: the images' dependency layers (TensorFlow is large)
# are then rebuilt only when pyproject.toml changes, not with every change to the code.
COPY pyproject.toml .
RUN python3 - <<'EOF'
import tomllib

project = tomllib.load(open("pyproject.toml", "rb"))["project"]
extras = project["optional-dependencies"]


def expanded(extra):
    """An extra's requirements, with the extras it names of this project (tiercards[speech])
    replaced by theirs: a requirements file must not ask an index for tiercards itself."""
    found = []
    for requirement in extras[extra]:
        name, _, rest = requirement.partition("[")
        if name == project["name"]:
            for inner in rest.rstrip("]").split(","):
                found += expanded(inner.strip())
        else:
            found.append(requirement)
    return found


web = project["dependencies"]
worker = web + expanded("worker")
open("/requirements-web.txt", "w").write("\n".join(web) + "\n")
open("/requirements-worker.txt", "w").write("\n".join(worker) + "\n")
EOF
COPY . .
# The wheel carries templates, static files, migrations and the default cards (setup.py).
RUN python3 -m pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# What the web and CPU worker images share: the unprivileged user, the data folder, the scripts.
FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATA_DIR=/data \
    AUTH_MODE=accounts
RUN useradd --create-home --uid 10001 tiercards && mkdir /data && chown tiercards /data
WORKDIR /srv/tiercards
COPY --chmod=755 deploy/*.sh deploy/
VOLUME ["/data"]

FROM runtime AS web
COPY --from=builder /requirements-web.txt /tmp/
RUN pip install -r /tmp/requirements-web.txt
RUN --mount=type=bind,from=builder,source=/wheels,target=/wheels \
    pip install /wheels/tiercards-*.whl && pip check \
    && python3 -c "import importlib.util as u, sys; sys.exit('TensorFlow must not be in the web image' if u.find_spec('tensorflow') else 0)"
USER tiercards
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
    CMD ["/srv/tiercards/deploy/healthcheck-web.sh"]
CMD ["/srv/tiercards/deploy/start-web.sh"]

FROM runtime AS worker
# The speech wheels by hash first (requirements/speech.txt); the extra's install finds them there.
COPY requirements/speech.txt /tmp/
RUN pip install --require-hashes --no-deps -r /tmp/speech.txt
COPY --from=builder /requirements-worker.txt /tmp/
RUN pip install -r /tmp/requirements-worker.txt
RUN --mount=type=bind,from=builder,source=/wheels,target=/wheels \
    pip install "$(echo /wheels/tiercards-*.whl)[worker]" && pip check
USER tiercards
# Healthy while this container's worker has beaten recently (it beats before loading TensorFlow).
HEALTHCHECK --interval=30s --timeout=20s --start-period=60s --retries=3 \
    CMD ["tiercards", "demo", "workers", "--here"]
CMD ["/srv/tiercards/deploy/start-worker.sh"]

# TensorFlow, CUDA and cuDNN come from the base image; the app is installed beside them without
# its `worker` extra, so pip brings no second TensorFlow, but with the speech extra: the speech
# model runs on the GPU through CTranslate2's own CUDA support.
FROM tensorflow/tensorflow:${TENSORFLOW_VERSION}-gpu AS gpu-worker
ARG TENSORFLOW_VERSION
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PIP_BREAK_SYSTEM_PACKAGES=1 \
    DATA_DIR=/data \
    AUTH_MODE=accounts
RUN useradd --create-home --uid 10001 tiercards && mkdir /data && chown tiercards /data
WORKDIR /srv/tiercards
COPY --chmod=755 deploy/*.sh deploy/
VOLUME ["/data"]
COPY requirements/speech.txt /tmp/
RUN python3 -m pip install --require-hashes --no-deps -r /tmp/speech.txt
COPY --from=builder /requirements-web.txt /tmp/
RUN python3 -m pip install -r /tmp/requirements-web.txt
RUN --mount=type=bind,from=builder,source=/wheels,target=/wheels \
    python3 -m pip install "$(echo /wheels/tiercards-*.whl)[speech]" \
    && python3 -c "import sys, tensorflow as tf; sys.exit(0 if tf.__version__ == sys.argv[1] else f'TensorFlow {tf.__version__}, not {sys.argv[1]}')" "$TENSORFLOW_VERSION"
USER tiercards
HEALTHCHECK --interval=30s --timeout=20s --start-period=120s --retries=3 \
    CMD ["tiercards", "demo", "workers", "--here"]
CMD ["/srv/tiercards/deploy/start-worker.sh"]
