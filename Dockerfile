# abw container images, built by .github/workflows/ci.yml and release.yml (no engine runs locally).
#
#   docker build -t ghcr.io/abw/gate:TAG .                    # the Action's gate image (last stage)
#   docker build --target latent -t ghcr.io/abw/gate-latent:TAG .   # abw-latent for GPU runners
#
# GitHub runs the Action's container as root with the workspace mounted at /github/workspace as
# the working directory, so this file sets no USER, relies on no WORKDIR, and uses an absolute
# exec-form ENTRYPOINT. The gate image never contains torch or transformers.

ARG PYTHON_IMAGE=python:3.12-slim-bookworm

# --- build: a virtual environment with abw and its CPU-only runtime dependencies -------------
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PYTHONDONTWRITEBYTECODE=1
COPY pyproject.toml README.md LICENSE /src/
COPY abw /src/abw
COPY agent_behavior_workbench /src/agent_behavior_workbench
RUN python -m venv /opt/abw \
 && /opt/abw/bin/pip install --no-cache-dir /src \
 && if /opt/abw/bin/python -c "import torch" 2>/dev/null; then echo "torch leaked into the gate image" >&2; exit 1; fi

# --- latent: abw-latent with torch + transformers, for a GPU runner -------------------------
# The torch wheel from PyPI bundles its CUDA libraries; the host's NVIDIA driver is mounted by
# the NVIDIA container toolkit (docker run --gpus all). Pin TORCH_VERSION to what you tested.
FROM build AS latent-build
ARG TORCH_VERSION=2.13.0
RUN /opt/abw/bin/pip install --no-cache-dir "torch==${TORCH_VERSION}" \
 && /opt/abw/bin/pip install --no-cache-dir "/src[latent]"

# --- runtime: what both images share (a plain Python, the labels, the environment) -----------
FROM ${PYTHON_IMAGE} AS runtime
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.source="https://github.com/abw/gate" \
      org.opencontainers.image.url="https://github.com/abw/gate" \
      org.opencontainers.image.documentation="https://github.com/abw/gate/blob/main/docs/action.md" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/abw/bin:$PATH

FROM runtime AS latent
LABEL org.opencontainers.image.title="abw-latent" \
      org.opencontainers.image.description="abw hidden-state trajectories (torch + transformers) for GPU runners; advisory evidence for the gate"
COPY --from=latent-build /opt/abw /opt/abw
ENTRYPOINT ["/opt/abw/bin/abw-latent"]

# --- gate: the Action's image (the last stage, so a plain `docker build` gives it) ----------
FROM runtime AS gate
LABEL org.opencontainers.image.title="abw gate" \
      org.opencontainers.image.description="GitHub Action: gate AI agents on behavior (PASS/WARN/FAIL/INCONCLUSIVE, check run, PR comment, SARIF, JUnit)"
COPY --from=build /opt/abw /opt/abw
COPY entrypoint.py /app/entrypoint.py
ENTRYPOINT ["/opt/abw/bin/python", "/app/entrypoint.py"]
