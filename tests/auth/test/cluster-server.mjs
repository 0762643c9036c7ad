// One of three processes of a server that signs people in through oauthProxy (cluster-sign-in.test.ts): every
// process has the same SECRET and the same Redis, and serves the one public origin (ISSUER, the round-robin proxy's,
// which sends the clients' Host on), so an authorization may start on one process and finish on another.
import { oauthProxy, oidcUpstream } from "@toolsmith/auth";
import { createServer } from "@toolsmith/core";
import { createRedisEngine } from "@toolsmith/redis";
import { listen } from "@toolsmith/transport-http";

const { REDIS_URL, SECRET, ISSUER, UPSTREAM_ISSUER, UPSTREAM_CLIENT_ID, UPSTREAM_CLIENT_SECRET } = process.env;
const server = createServer({
  name: "cluster-sign-in",
  version: "1.0.0",
  engine: createRedisEngine({ url: REDIS_URL }),
  stateKey: process.env.STATE_KEY,
});
const auth = oauthProxy(server, {
  upstream: oidcUpstream({
    issuer: UPSTREAM_ISSUER,
    clientId: UPSTREAM_CLIENT_ID,
    clientSecret: UPSTREAM_CLIENT_SECRET,
  }),
  secret: SECRET,
  issuer: ISSUER,
  // Client metadata documents on a loopback address (the test's own https server).
  development: true,
});
server.tool({
  name: "whoami",
  description: "The caller, the process that answered, and whether the upstream's token for them is reachable.",
  handler: async (_input, ctx) => {
    const upstream = await auth.upstreamToken(ctx);
    // For the test alone, which looks for it in Redis afterwards: a real server never writes a token anywhere.
    process.stderr.write(`test spy: upstream token ${upstream}\n`);
    return {
      subject: ctx.auth?.subject,
      clientId: ctx.auth?.clientId,
      pid: process.pid,
      upstream: upstream.length > 0,
    };
  },
});
await listen(server, { port: 0, allowedHosts: [new URL(ISSUER).host], ...auth });
