# The Clearance image: worker, web app and CLI (`clearance db upgrade` migrates), with the
# same pinned dependencies as scripts/setup. docker-compose.yml runs it three ways.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    CLEARANCE_DATA_DIR=/data

WORKDIR /app
# Pango, HarfBuzz's subsetter and DejaVu: WeasyPrint's PDF reports, fonts embedded.
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
       libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*
COPY requirements.lock pyproject.toml README.md ./
RUN pip install --no-cache-dir -r requirements.lock
COPY . .
# Editable: templates and rule data are read beside the code (settings.PROJECT_ROOT).
RUN pip install --no-cache-dir --no-deps -e . \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin clearance \
    && mkdir -p /data \
    && chown clearance:clearance /data \
    && chmod 0700 /data

# Never root: the data folder (outbox, evidence uploads, secret key) is the only writable place.
# A new clearance-data volume starts as this /data: 0700, the app user's alone; `clearance
# worker` and `clearance web` keep what they write there 0600 (umask 077) and take group
# and other access away from anything an older release left readable.
USER clearance
VOLUME ["/data"]
# 8000: the web app; 8081: the worker's /healthz and /readyz (CLEARANCE_WORKER_HEALTH_PORT).
EXPOSE 8000 8081
CMD ["clearance", "worker"]
