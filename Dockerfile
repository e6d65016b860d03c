# A container is for serving a team on a network, so it signs people in (AUTH_MODE=accounts);
# single mode would refuse its 0.0.0.0 address. One image for both roles: `tiercards serve` (web, plus a worker unless --no-worker) and
# `tiercards worker` (a demo worker host; TensorFlow is only ever imported there).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATA_DIR=/data \
    AUTH_MODE=accounts

WORKDIR /srv/tiercards
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
RUN pip install '.[worker]' && pip uninstall -y tiercards
COPY . .
RUN pip install --no-deps -e . && useradd --create-home tiercards && mkdir -p /data && chown tiercards /data

USER tiercards
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz')"
CMD ["tiercards", "serve", "--host", "0.0.0.0", "--port", "8000"]
