import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BrowserSignIn } from "@toolsmith/tests-idp";
import type { RouteHandler, Routes } from "@toolsmith/transport-http";
import { Redis } from "ioredis";

/**
 * The official client's provider as an application keeps it (`BrowserSignIn`), dropping what the server said is no
 * longer valid (a refused refresh), and naming its client metadata document when given one (CIMD).
 */
export class SignIn extends BrowserSignIn {
  constructor(readonly clientMetadataUrl?: string) {
    super();
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "client") this.client = undefined;
  }
}

/** One request the OAuth proxy's routes were sent: its route (`POST /token`) and, for a form, its `grant_type`. */
export interface Seen {
  readonly route: string;
  readonly grantType: string | undefined;
}

/**
 * The proxy's routes, each telling `seen` of every request it is sent before it answers it: what the client and
 * the browser did, as the server saw it (a refresh is a `POST /token` with `grant_type=refresh_token`).
 */
export function observedRoutes(routes: Routes, seen: (request: Seen) => void): Routes {
  const observed: Record<string, Routes[string]> = {};
  for (const [route, entry] of Object.entries(routes)) {
    const handler: RouteHandler = typeof entry === "function" ? entry : entry.handler;
    const watching: RouteHandler = async (request, info) => {
      const form = route.startsWith("POST ") ? new URLSearchParams(await request.clone().text()) : undefined;
      seen({ route, grantType: form?.get("grant_type") ?? undefined });
      return handler(request, info);
    };
    observed[route] = typeof entry === "function" ? watching : { ...entry, handler: watching };
  }
  return observed;
}

/** Resolves with the first request `seen` (see `observedRoutes`) that `matches`, from now on. */
export class RouteWatch {
  readonly all: Seen[] = [];
  #waiting: { matches: (seen: Seen) => boolean; resolve: (seen: Seen) => void }[] = [];

  readonly see = (seen: Seen): void => {
    this.all.push(seen);
    for (const waiter of this.#waiting.filter((w) => w.matches(seen))) {
      this.#waiting = this.#waiting.filter((w) => w !== waiter);
      waiter.resolve(seen);
    }
  };

  next(matches: (seen: Seen) => boolean): Promise<Seen> {
    return new Promise((resolve) => this.#waiting.push({ matches, resolve }));
  }

  /** How many requests so far were sent to `route` (with `grantType`, when given). */
  count(route: string, grantType?: string): number {
    return this.all.filter((seen) => seen.route === route && (grantType === undefined || seen.grantType === grantType))
      .length;
  }
}

/** An https server on 127.0.0.1 of the test's own, with a certificate only the processes told of `caFile` trust. */
export interface HttpsDocument {
  /** `https://127.0.0.1:<port>/client.json` */
  readonly url: string;
  /** The certificate's PEM file, for `NODE_EXTRA_CA_CERTS`. */
  readonly caFile: string;
  close(): Promise<void>;
}

/**
 * Serves `document(url)` as JSON at `https://127.0.0.1:<port>/client.json` (a client ID metadata document, whose
 * client_id is its own URL), over TLS with a self-signed certificate for 127.0.0.1 made by `openssl`.
 */
export async function serveHttpsDocument(document: (url: string) => unknown): Promise<HttpsDocument> {
  const dir = mkdtempSync(join(tmpdir(), "toolsmith-cimd-"));
  const [keyFile, caFile] = [join(dir, "key.pem"), join(dir, "cert.pem")];
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1"].concat([
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      keyFile,
      "-out",
      caFile,
    ]),
    { stdio: "ignore" },
  );
  let url = "";
  const server = createHttpsServer({ key: readFileSync(keyFile), cert: readFileSync(caFile) }, (req, res) => {
    if (req.url !== "/client.json") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(document(url)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/client.json`;
  return {
    url,
    caFile,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every key in Redis at `url` and everything stored under it, as text (SCAN, then by the key's type). */
export async function everythingInRedis(url: string): Promise<Map<string, string>> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const found = new Map<string, string>();
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "COUNT", 1000);
      cursor = next;
      for (const key of keys) found.set(key, await storedUnder(redis, key));
    } while (cursor !== "0");
    return found;
  } finally {
    redis.disconnect();
  }
}

async function storedUnder(redis: Redis, key: string): Promise<string> {
  const type = await redis.type(key);
  switch (type) {
    case "string":
      return (await redis.get(key)) ?? "";
    case "hash":
      return JSON.stringify(await redis.hgetall(key));
    case "list":
      return JSON.stringify(await redis.lrange(key, 0, -1));
    case "set":
      return JSON.stringify(await redis.smembers(key));
    case "zset":
      return JSON.stringify(await redis.zrange(key, "0", "-1", "WITHSCORES"));
    case "stream":
      return JSON.stringify(await redis.xrange(key, "-", "+"));
    default:
      return `(${type})`;
  }
}
