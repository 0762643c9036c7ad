// What verifying a bearer token costs per request, in CPU, in one process (no HTTP, no other process sharing the
// measurement): the web Request the transport builds for an `authenticate` hook, jwtVerifier on it (ES256, its
// keys given locally, and fetched once from bench/auth-keys.mjs's issuer), and jwtVerifier given the Authorization
// header alone, as transport-http gives it. CPU time, not wall time, so a busy
// machine changes the figures little. Usage (after a build): node bench/auth-cost.mjs [--rounds 5 --calls 5000]
import { parseArgs } from "node:util";
// Not declared dependencies of the bench (that would touch the lockfile): the built package, by path.
import { jwtVerifier } from "../packages/auth/dist/index.js";
import { AUDIENCE, startIssuer } from "./auth-keys.mjs";

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== "--"),
  options: { rounds: { type: "string", default: "5" }, calls: { type: "string", default: "5000" } },
});
const ROUNDS = Number(values.rounds);
const CALLS = Number(values.calls);

const issuer = await startIssuer();
// The headers a 2026-07-28 tools/call of bench/http.mjs carries, copied into a Request as the node listener does.
const incoming = {
  host: "127.0.0.1:3000",
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "add",
  authorization: `Bearer ${issuer.token}`,
  "content-length": "230",
};
const request = () => {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) headers.set(name, value);
  return new Request("http://127.0.0.1:3000/mcp", { method: "POST", headers });
};
const options = { issuer: issuer.url, audience: AUDIENCE, algorithms: ["ES256"] };
const local = jwtVerifier({ ...options, jwks: issuer.jwks });
const remote = jwtVerifier({ ...options, jwksUri: issuer.jwksUri });
const built = request();
const bearer = incoming.authorization;
const steps = [
  ["the transport's Request for the hook (Headers copied, new Request)", async () => request()],
  ["jwtVerifier, local JWKS", () => local(built)],
  ["jwtVerifier, remote JWKS (fetched once, then cached)", () => remote(built)],
  // What transport-http calls: the Authorization header alone, a remembered token answered without a promise.
  ["jwtVerifier from the Authorization header (fromAuthorization), local JWKS", () => local.fromAuthorization(bearer)],
];

const median = (list) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];
const lines = [];
for (const [name, step] of steps) {
  for (let i = 0; i < CALLS / 2; i++) await step();
  const samples = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) await step();
    const used = process.cpuUsage(before);
    samples.push((used.user + used.system) / CALLS);
  }
  lines.push(`| ${name} | ${median(samples).toFixed(1)} µs |`);
}
await issuer.stop();
process.stdout.write(
  [
    `CPU per call (all threads: WebCrypto verifies on libuv's pool), medians of ${ROUNDS} × ${CALLS} calls on Node ${process.versions.node}; the remote JWKS fetched ${issuer.fetches()} time(s).`,
    "",
    "| step | CPU per call |",
    "|---|---|",
    ...lines,
    "",
  ].join("\n"),
);
