import { createServer } from "@toolsmith/core";
// Not declared dependencies of the bench (that would touch the lockfile): the built packages, by path.
import { createRemote } from "../../packages/remote/dist/index.js";
import { listen } from "../../packages/transport-http/dist/index.js";
import { benchPort } from "./http-toolsmith-parts.mjs";

// A gateway in front of one remote: `--remote URL`, `--era legacy|2026-07-28` (the era it speaks to the remote); the
// remote's tools registered unprefixed (`into`), so a call of `add` here is forwarded as a call of `add` there.
const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const era = arg("--era") === "2026-07-28" ? { pin: "2026-07-28" } : "legacy";
const server = createServer({ name: "bench-gateway", version: "1.0.0" });
await createRemote({ url: arg("--remote"), era, into: server });
await listen(server, { port: benchPort(), host: "127.0.0.1", log: process.stdout });
