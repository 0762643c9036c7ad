import { countInStore, serveCounter } from "./http-toolsmith-store-parts.mjs";

// The store bench's tool counting in ctx.store on the Redis engine at BENCH_REDIS_URL.
await serveCounter({ redis: true }, countInStore);
