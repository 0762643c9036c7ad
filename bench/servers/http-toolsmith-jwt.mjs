import { createServer } from "@toolsmith/core";
// Not declared dependencies of the bench (that would touch the lockfile): the built packages, by path.
import { jwtVerifier } from "../../packages/auth/dist/index.js";
import { listen } from "../../packages/transport-http/dist/index.js";
import { benchPort, withAddTool } from "./http-toolsmith-parts.mjs";

// http-toolsmith.mjs behind a bearer token verified by jwtVerifier (bench/http.mjs --auth starts the issuer, see
// bench/auth-keys.mjs, and names it in BENCH_AUTH_*). `--jwks local`: the issuer's public keys given to the
// verifier; `--jwks remote`: fetched from the issuer's JWKS URL (once, then cached).
const arg = (name) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const { BENCH_AUTH_ISSUER: issuer, BENCH_AUTH_AUDIENCE: audience, BENCH_AUTH_JWKS, BENCH_AUTH_JWKS_URI } = process.env;
if (!issuer || !audience || !BENCH_AUTH_JWKS || !BENCH_AUTH_JWKS_URI) {
  throw new Error("BENCH_AUTH_* is not set: run bench/http.mjs --auth, which starts the issuer");
}
const mode = arg("--jwks") ?? "local";
if (mode !== "local" && mode !== "remote") throw new Error(`--jwks local|remote, not ${mode}`);
const authenticate = jwtVerifier({
  issuer,
  audience,
  algorithms: ["ES256"],
  ...(mode === "local" ? { jwks: JSON.parse(BENCH_AUTH_JWKS) } : { jwksUri: BENCH_AUTH_JWKS_URI }),
});

const server = withAddTool(createServer({ name: "bench-toolsmith", version: "1.0.0" }));
await listen(server, { port: benchPort(), host: "127.0.0.1", log: process.stdout, authenticate });
