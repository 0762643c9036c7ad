import { createMemoryEngine, type Engine } from "@toolsmith/core/engine";
import { type Idp, launchChromium, signInWithChromium } from "@toolsmith/tests-idp";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  authorizeFor,
  exchangeCode,
  idpUpstream,
  type Proxied,
  pkce,
  postForm,
  registerClient,
  registerProxy,
  startProxied,
  upstreamIdp,
} from "./proxy.test-util.js";

// Revocation raced against a token request on the same grant: a grant revoked (a refresh token or a code used twice)
// while another request on it is between reading the grant and issuing must stay revoked. The engine holds the
// issuing request's write of the grant until the revocation's delete has happened, so the race is the same each run.

const REDIRECT = "http://127.0.0.1:9/callback";
let idp: Idp;
let proxied: Proxied;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let clientId: string;

/** Armed: the next write of a grant is held until a grant is deleted (`reached` tells the hold began). */
let hold: { reached: () => void; deleted: Promise<void> } | undefined;
let grantDeleted: (() => void) | undefined;

/** Hold the next write of a grant until a grant is deleted: resolves once that write is held. */
function holdNextGrantWrite(): Promise<void> {
  const deleted = new Promise<void>((resolve) => {
    grantDeleted = resolve;
  });
  return new Promise<void>((reached) => {
    hold = { reached, deleted };
  });
}

/** Armed: the next write of a spent code's mark waits until a take of a code has found nothing. */
let spentHold: Promise<void> | undefined;
let codeMissed: (() => void) | undefined;

function holdSpentMarkUntilCodeMissed(): void {
  spentHold = new Promise<void>((resolve) => {
    codeMissed = resolve;
  });
}

/** The memory engine, with the holds above on its values. */
function heldEngine(): Engine {
  const engine = createMemoryEngine();
  return new Proxy(engine, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== "function") return value;
      const method = value.bind(target) as (key: string, ...rest: unknown[]) => unknown;
      if (name === "setValue") {
        return async (key: string, ...rest: unknown[]) => {
          const spent = spentHold;
          if (spent !== undefined && key.startsWith("auth:spent:")) {
            spentHold = undefined;
            await spent;
          }
          const armed = hold;
          if (armed !== undefined && key.startsWith("auth:grant:")) {
            hold = undefined;
            armed.reached();
            await armed.deleted;
          }
          return method(key, ...rest);
        };
      }
      if (name === "deleteValue") {
        return async (key: string) => {
          const answer = await method(key);
          if (key.startsWith("auth:grant:")) grantDeleted?.();
          return answer;
        };
      }
      if (name === "takeValue") {
        return async (key: string) => {
          const answer = await method(key);
          if (key.startsWith("auth:code:") && answer === undefined) codeMissed?.();
          return answer;
        };
      }
      return method;
    },
  });
}

beforeAll(async () => {
  idp = await upstreamIdp();
  proxied = await startProxied({ upstream: idpUpstream(idp), engine: heldEngine() });
  await registerProxy(idp, [proxied.origin]);
  browser = await launchChromium();
  clientId = await registerClient(proxied.origin, REDIRECT);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await proxied?.http.close();
  await proxied?.server.engine.close();
  await idp?.close();
});

async function authorize() {
  const client = await pkce();
  const url = authorizeFor(proxied.origin, clientId, client);
  const back = new URL(await signInWithChromium(url, { browser }));
  return { code: back.searchParams.get("code") ?? "", verifier: client.verifier };
}

const exchange = ({ code, verifier }: { code: string; verifier: string }) =>
  exchangeCode(proxied.origin, clientId, code, verifier);

async function signIn() {
  const tokens = await exchange(await authorize());
  expect(tokens.status).toBe(200);
  return tokens.body;
}

const refresh = (token: string) =>
  postForm(`${proxied.origin}/token`, { grant_type: "refresh_token", refresh_token: token, client_id: clientId });

it("keeps a grant revoked by a refresh token's reuse even while its rotation is issuing", async () => {
  const { refresh_token: stolen } = await signIn();
  // One rotation reads the grant, then is held before writing it back...
  const reached = holdNextGrantWrite();
  const rotating = refresh(stolen ?? "");
  await reached;
  // ...while the same refresh token is used again: a reuse, so the grant is revoked.
  expect((await refresh(stolen ?? "")).body.error).toBe("invalid_grant");
  const rotated = await rotating;
  // Whatever the held rotation answers, it must not bring the revoked grant back.
  if (rotated.status === 200) {
    expect((await refresh(rotated.body.refresh_token ?? "")).body.error).toBe("invalid_grant");
  } else {
    expect(rotated.body.error).toBe("invalid_grant");
  }
}, 60_000);

it("never lets a code used twice at once keep a grant: at most one exchange issues, and that grant is revoked", async () => {
  const authorized = await authorize();
  // Were the code marked spent only after it is taken, the first exchange is held before that mark until the second
  // has found nothing: the second would then not know which grant to revoke.
  holdSpentMarkUntilCodeMissed();
  const answers = await Promise.all([exchange(authorized), exchange(authorized)]);
  spentHold = undefined;
  const issued = answers.filter((answer) => answer.status === 200);
  expect(issued.length).toBeLessThanOrEqual(1);
  for (const refused of answers.filter((answer) => answer.status !== 200)) {
    expect([refused.status, refused.body.error]).toEqual([400, "invalid_grant"]);
  }
  // A code used twice: the grant behind it is revoked, so a refresh token issued by it is refused.
  for (const { body } of issued) expect((await refresh(body.refresh_token ?? "")).body.error).toBe("invalid_grant");
}, 60_000);
