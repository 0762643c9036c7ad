// The bench's own token issuer for `bench/http.mjs --auth`: an ES256 key pair, one access token signed with it, and a
// tiny node:http server publishing the public key as a JWKS (and the issuer's metadata naming it), counting fetches.
import http from "node:http";
// Not a declared dependency of the bench (that would touch the lockfile): the jose @toolsmith/auth depends on.
import { exportJWK, generateKeyPair, SignJWT } from "../packages/auth/node_modules/jose/dist/webapi/index.js";

/** What the servers verify tokens against: the issuer and audience every token names. */
export const AUDIENCE = "http://127.0.0.1/mcp";
const KID = "bench-es256";

/**
 * Starts the issuer: `url` (its origin, the tokens' `iss`), `jwksUri`, `jwks` (the public keys, for a verifier
 * given them locally), `token` (one access token, an hour long, with `scope`), `fetches()` (how many times the
 * JWKS was asked for) and `stop()`.
 */
export async function startIssuer() {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: KID, alg: "ES256", use: "sig" }] };
  let fetches = 0;
  const server = http.createServer((request, response) => {
    const origin = `http://${request.headers.host}`;
    const send = (body) => {
      response.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=300" });
      response.end(JSON.stringify(body));
    };
    if (request.url === "/jwks.json") {
      fetches++;
      send(jwks);
    } else if (
      request.url === "/.well-known/openid-configuration" ||
      request.url === "/.well-known/oauth-authorization-server"
    ) {
      send({ issuer: origin, jwks_uri: `${origin}/jwks.json`, response_types_supported: ["code"] });
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const token = await new SignJWT({ scope: "bench:call", client_id: "bench-client" })
    .setProtectedHeader({ alg: "ES256", kid: KID, typ: "at+jwt" })
    .setIssuer(url)
    .setAudience(AUDIENCE)
    .setSubject("bench-user")
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(privateKey);
  return {
    url,
    jwksUri: `${url}/jwks.json`,
    jwks,
    token,
    fetches: () => fetches,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}
