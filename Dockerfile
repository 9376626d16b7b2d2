# One image for the web process, the Celery workers and beat (docker-compose.yml picks the command).
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    ARENA_VAR_DIR=/var/lib/arena

# bubblewrap + util-linux: the bot sandbox; /usr/bin/python3: the interpreter bots run with.
RUN apt-get update -qq \
    && apt-get install -y --no-install-recommends bubblewrap util-linux python3-minimal \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engines engines
COPY runner runner
COPY knobs knobs
COPY ratings ratings
COPY tournaments tournaments
COPY play play
COPY workers workers
COPY hooks hooks
COPY api api
COPY web web
COPY ops ops
COPY config config
COPY seeds seeds
COPY docs docs
COPY manage.py ./
COPY scripts/worker-entry scripts/worker-entry
RUN pip install --no-cache-dir '.[server]' && mkdir -p /var/lib/arena

EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]
