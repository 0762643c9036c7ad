import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** The path the authorization server sends the browser back to. */
export const CALLBACK_PATH = "/callback";

/** Why the sign-in did not come back: no answer in time, an answer that was not ours, or the receiver closed. */
export class SignInFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SignInFailed";
  }
}

/** Where the browser comes back to after sign-in: one request on 127.0.0.1, then closed. */
export interface LoopbackReceiver {
  /** `http://127.0.0.1:<port>/callback`, the redirect URI registered and sent. */
  readonly redirectUrl: string;
  readonly port: number;
  /** The `state` the authorization request carries, which the answer must carry back. */
  expect(state: string): void;
  /**
   * The query of the first request to the callback path, when its `state` is the one expected; rejects with
   * `SignInFailed` when it carries another (or none), when `timeoutMs` passes first, or on `close`.
   */
  wait(timeoutMs: number): Promise<URLSearchParams>;
  close(): Promise<void>;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body style="font-family:system-ui,sans-serif;margin:4rem auto;max-width:32rem"><h1>${title}</h1><p>${text}</p></body></html>`;

function answer(response: ServerResponse, status: number, title: string, text: string): void {
  response.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    connection: "close",
  });
  response.end(PAGE(title, text));
}

/**
 * Listen on 127.0.0.1 (on `port`, else on a free one the system picks) for the browser's return from sign-in. Other
 * paths are 404 and do not count (a browser asks for `/favicon.ico`); the first request to the callback path ends it.
 */
export async function startLoopbackReceiver(port = 0): Promise<LoopbackReceiver> {
  let settle: ((query: URLSearchParams | Error) => void) | undefined;
  let expected: string | undefined;
  let early: URLSearchParams | Error | undefined;
  let done = false;
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (request.method !== "GET" || url.pathname !== CALLBACK_PATH || done) {
      answer(response, 404, "Not found", "This address only takes the sign-in answer.");
      return;
    }
    done = true;
    const state = url.searchParams.get("state");
    const outcome =
      expected !== undefined && state === expected
        ? url.searchParams
        : new SignInFailed("the sign-in answer did not carry the state toolsmith sent; run the command again");
    if (outcome instanceof Error) {
      answer(response, 400, "Sign-in not accepted", "This answer was not for the sign-in toolsmith started.");
    } else if (outcome.has("error")) {
      answer(response, 200, "Sign-in refused", "The authorization server said no. You can close this tab.");
    } else {
      answer(response, 200, "Signed in", "toolsmith has the answer. You can close this tab.");
    }
    response.on("finish", () => void close());
    if (settle) settle(outcome);
    else early = outcome;
  });
  const close = () =>
    new Promise<void>((resolve) => {
      done = true;
      server.close(() => resolve());
      server.closeAllConnections();
      settle?.(new SignInFailed("the sign-in was stopped"));
    });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    redirectUrl: `http://127.0.0.1:${bound}${CALLBACK_PATH}`,
    close,
    expect(state) {
      expected = state;
    },
    wait(timeoutMs) {
      return new Promise<URLSearchParams>((resolve, reject) => {
        const timer = setTimeout(() => {
          settle?.(
            new SignInFailed(
              `no sign-in came back within ${Math.round(timeoutMs / 1000)} s; run the command again (or raise --sign-in-timeout)`,
            ),
          );
        }, timeoutMs);
        settle = (outcome) => {
          settle = undefined;
          clearTimeout(timer);
          if (outcome instanceof Error) reject(outcome);
          else resolve(outcome);
          void close();
        };
        if (early !== undefined) settle(early);
      });
    },
  };
}
