# The service image: build the TypeScript and the web console once, run the compiled JavaScript on Node 20.
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# patch-package applies patches/ after the install (postinstall): one fix to neo4j-driver's message decoding.
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/web ./scripts/web
COPY src ./src
COPY web ./web
# `npm run build` installs the console's own packages (web/package-lock.json) and builds web/dist.
RUN npm run build && npm prune --omit=dev

FROM node:20-slim
# Two malloc arenas: with glibc's default (8 per core) the threads of the process (libuv's pool, the vector search
# and PDF workers, V8's helpers) each fragment an arena of their own, and RSS keeps growing under steady load.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
# Cypher queries and migrations are read at run time; models.toml is the default model catalog.
COPY package.json models.toml ./
COPY cypher ./cypher
USER node
EXPOSE 8080
CMD ["node", "dist/main.js"]
