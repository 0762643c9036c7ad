import { countInStore, serveCounter } from "./http-toolsmith-store-parts.mjs";

// The store bench's tool counting in ctx.store on the memory engine (the default).
await serveCounter({ redis: false }, countInStore);
