# The Clearance worker (and CLI) image: the same pinned dependencies as scripts/setup.
FROM python:3.11-slim
WORKDIR /app
COPY requirements.lock pyproject.toml README.md ./
RUN pip install --no-cache-dir -r requirements.lock
COPY . .
RUN pip install --no-cache-dir --no-deps -e .
ENV CLEARANCE_DATA_DIR=/data
VOLUME ["/data"]
CMD ["clearance", "worker"]
