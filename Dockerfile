# One image for every role: `gateway start --role all | control-plane | data-plane`
# (docs/deployment.md). test/deploy/image-layout.e2e.ts rebuilds the runtime layout from this
# file's COPY and RUN lines and starts each role from it, so a file the runtime needs and this file
# forgets fails CI even where no container engine exists. It reproduces only the instructions and
# commands it knows (it fails on any other), so keep to: WORKDIR, ENV, COPY [--from], RUN with
# npm ci / npm rebuild / mkdir -p / ln -s / chown joined by &&, USER, EXPOSE, ENTRYPOINT, CMD.

# --- build: compile every project with the dev dependencies -------------------------------------
FROM node:20-bookworm AS build
WORKDIR /src
COPY . .
# --ignore-scripts: the root `prepare` script would build before `npm run build` does, and the
# native SQLite addon is not needed to compile.
RUN npm ci --ignore-scripts --no-audit --no-fund && npm run build

# --- production dependencies of the `gateway` command only -------------------------------------
# A full Debian image (python3, make, g++) so better-sqlite3 compiles when no prebuilt binary
# matches; only node_modules leaves this stage.
FROM node:20-bookworm AS production-deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY apps/cli/package.json apps/cli/package.json
COPY apps/control-plane/package.json apps/control-plane/package.json
COPY apps/data-plane/package.json apps/data-plane/package.json
COPY libs/client-address/package.json libs/client-address/package.json
COPY libs/config-file/package.json libs/config-file/package.json
COPY libs/correlation-id/package.json libs/correlation-id/package.json
COPY libs/events/package.json libs/events/package.json
COPY libs/logging/package.json libs/logging/package.json
COPY libs/outbound-target/package.json libs/outbound-target/package.json
COPY libs/route-model/package.json libs/route-model/package.json
# --workspace @gateway/cli: the CLI and what it depends on, not the test and benchmark workspaces.
# --ignore-scripts skips the root `prepare` (tsc is a dev dependency); the one install script the
# runtime needs, better-sqlite3's native addon, is run by the rebuild.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund --workspace @gateway/cli && npm rebuild better-sqlite3

# --- runtime: slim Node 20, non-root, read-only root file system --------------------------------
FROM node:20-bookworm-slim AS runtime
# The data directory and /tmp are the only places the gateway writes; mount volumes there when the
# root file system is read-only (deploy/base does).
ENV NODE_ENV=production \
    GATEWAY_CONFIG=/etc/gateway/proxy.yml \
    GATEWAY_DATA_DIR=/var/lib/gateway
WORKDIR /app
# The whole stage, not just /app/node_modules: npm nests a workspace's own copy of a package in
# that workspace (libs/config-file/node_modules/yaml, where the root holds another major).
COPY --from=production-deps /app ./
COPY --from=build /src/apps/cli/bin apps/cli/bin
COPY --from=build /src/apps/cli/dist apps/cli/dist
COPY --from=build /src/apps/control-plane/dist apps/control-plane/dist
COPY --from=build /src/apps/data-plane/dist apps/data-plane/dist
COPY --from=build /src/apps/admin-web/dist apps/admin-web/dist
COPY --from=build /src/libs/client-address/dist libs/client-address/dist
COPY --from=build /src/libs/config-file/dist libs/config-file/dist
COPY --from=build /src/libs/correlation-id/dist libs/correlation-id/dist
COPY --from=build /src/libs/events/dist libs/events/dist
COPY --from=build /src/libs/logging/dist libs/logging/dist
COPY --from=build /src/libs/outbound-target/dist libs/outbound-target/dist
COPY --from=build /src/libs/route-model/dist libs/route-model/dist
# The default configuration: no routes, listening on every interface (deploy/ mounts its own).
COPY deploy/base/proxy.yml /etc/gateway/proxy.yml
# `gateway` on PATH; the data directory owned by the runtime user (uid 1000, `node` in the image).
RUN ln -s /app/apps/cli/bin/gateway.js /usr/local/bin/gateway && mkdir -p /var/lib/gateway && chown 1000:1000 /var/lib/gateway
# Numeric, so Kubernetes can check runAsNonRoot without reading /etc/passwd.
USER 1000:1000
EXPOSE 8080
# Exec form: the gateway is PID 1 (its shebang's `env -S node` execs node in place), so SIGTERM
# from the kubelet reaches its drain handler.
ENTRYPOINT ["gateway"]
CMD ["start", "--role", "all"]
