# syntax=docker/dockerfile:1
#
# One image recipe for every app of the monorepo; the APP build argument picks the one it starts:
#   docker build --build-arg APP=chat-service -t federation-platform/chat-service .
#   docker build --build-arg APP=platformctl  -t federation-platform/platformctl .
#   docker build -t federation-platform/platform .            # all-in-one (the default)
# Apps: auth-service chat-service agent-runtime admin-service agent-protocols llm-gateway
#       platform (everything in one process) platformctl (CLI: `docker run ... migrate`)
#       web-service (the web app's files and its UI resource sandbox; no database).
# Every image holds the whole compiled tree; the layers up to the last few are identical for all
# apps, so building the nine images costs one build plus nine tiny layers.

# The same Node major as the `node` runtime package in package.json's devDependencies, which runs
# npm scripts outside containers (checked by deploy/deploy.spec.ts).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS base
WORKDIR /app
ENV npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false

# --- deps: production node_modules only --------------------------------------------------------
FROM base AS deps
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    npm ci --omit=dev

# --- build: all dependencies, then the sources, then SWC into dist/ ---------------------------
FROM base AS build
COPY package.json package-lock.json ./
# --ignore-scripts: the only install script package.json approves is the `node` runtime package's,
# which downloads the Node binary that this image already is.
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    npm ci --ignore-scripts
COPY tsconfig.base.json nx.json ./
COPY tools ./tools
COPY libs ./libs
COPY apps ./apps
RUN BUILD_QUIET=1 node tools/build.mjs --clean
# The web app's static files (Vite, into dist/web): the platform serves them, and so does the web deployable.
RUN node tools/build-web.mjs --force

# --- runtime ------------------------------------------------------------------------------------
FROM base AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080
# Owned by root and so read-only for the `node` user the process runs as.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY --from=build /app/dist ./dist
# DATA_DIR (./.data) of the all-in-one `platform` and of `platformctl` without DATABASE_URL
# (embedded PostgreSQL); services never write it. Mount a volume here to keep that data.
RUN mkdir -p /app/.data && chown node:node /app/.data
# BLOB_DIR of the distributed apps with BLOB_STORE=fs (a volume shared by chat-service, agent-runtime and
# agent-protocols), and the directories where `platformctl bootstrap` keeps the demo credentials and,
# apart, the agent's gateway key for agent-runtime (docker-compose.yml); named volumes mounted here
# start with this owner.
RUN mkdir -p /var/lib/federation/blobs /var/lib/federation/bootstrap /var/lib/federation/agent-key \
    && chown -R node:node /var/lib/federation

# Declared this late so that every layer above is shared by all apps.
ARG APP=platform
ENV APP=${APP}
RUN test -f "dist/apps/${APP}/src/main.js" \
    || { echo "APP=${APP}: dist/apps/${APP}/src/main.js does not exist (unknown app?)" >&2; exit 1; }
# The web app's files: the platform and web-service serve them, so a broken web build fails here, not at start.
RUN test -f dist/web/index.html || { echo "dist/web/index.html is missing (tools/build-web.mjs)" >&2; exit 1; }

USER node
# 8081: the UI resource sandbox (WEB_SANDBOX_PORT) of web-service and the platform.
EXPOSE 8080 8081
# No HEALTHCHECK: platformctl is not a server. Orchestrators probe GET /healthz (liveness) and
# GET /readyz (readiness) on PORT; see docker-compose.yml and deploy/k8s.
# `exec` hands PID 1 to node, so SIGTERM reaches the app and it drains before exiting.
# Arguments after the image name go to the app: `docker run IMAGE migrate` for platformctl.
ENTRYPOINT ["/bin/sh", "-c", "exec node \"dist/apps/${APP}/src/main.js\" \"$@\"", "--"]
CMD []
