import { lookup as dnsLookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { isLoopbackHost, isPublicAddress } from "./addresses.js";

// One GET of a client's metadata document, guarded against server-side request forgery: the host is resolved once,
// every address it resolves to must be public, and the connection goes to the address checked (a `lookup` that
// answers it), so a second resolution cannot rebind the name to a private one. Redirects are not followed; the body
// is read to a size bound and the whole exchange, the resolution included, to a time bound.

/** Resolves a host name to its addresses (the default is the system resolver, `node:dns`). */
export type HostResolver = (hostname: string) => Promise<readonly string[]>;

export interface FetchLimits {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** Allow http and private or loopback addresses (local development and tests). */
  readonly development: boolean;
  readonly resolveHost?: HostResolver;
}

/** A fetched document: its parsed JSON and the seconds it may be kept for (`Cache-Control: max-age`), if said. */
export interface FetchedDocument {
  readonly json: unknown;
  readonly maxAgeSec: number | undefined;
  readonly noStore: boolean;
}

/** Why a fetch was refused: a message for the person at the authorize step, never the fetched body. */
export class DocumentRefusal extends Error {
  override readonly name = "DocumentRefusal";
}

const systemResolver: HostResolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

async function vettedAddress(url: URL, limits: FetchLimits, signal: AbortSignal): Promise<string> {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (!limits.development && isLoopbackHost(url.hostname)) {
    throw new DocumentRefusal("its host is a loopback name");
  }
  let addresses: readonly string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    const aborted = new Promise<never>((_, reject) =>
      signal.addEventListener("abort", () => reject(new DocumentRefusal("it took too long to answer")), {
        once: true,
      }),
    );
    try {
      addresses = await Promise.race([(limits.resolveHost ?? systemResolver)(host), aborted]);
    } catch (error) {
      if (error instanceof DocumentRefusal) throw error;
      throw new DocumentRefusal("its host name does not resolve");
    }
  }
  const first = addresses[0];
  if (first === undefined) throw new DocumentRefusal("its host name does not resolve");
  if (!limits.development && !addresses.every(isPublicAddress)) {
    throw new DocumentRefusal("its host is a private, loopback or otherwise non-public address");
  }
  return first;
}

function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

function isJson(contentType: string | undefined): boolean {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

function cacheHints(header: string | undefined): { maxAgeSec: number | undefined; noStore: boolean } {
  const directives = (header ?? "")
    .toLowerCase()
    .split(",")
    .map((part) => part.trim());
  const noStore = directives.some((d) => d === "no-store" || d === "no-cache");
  const maxAge = directives.find((d) => d.startsWith("max-age="))?.slice("max-age=".length);
  const seconds = maxAge !== undefined && /^\d{1,10}$/.test(maxAge) ? Number(maxAge) : undefined;
  return { maxAgeSec: seconds, noStore };
}

function readBody(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on("data", (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) {
        // Stop reading: what is past the bound is never buffered.
        response.destroy();
        reject(new DocumentRefusal(`it is larger than ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    response.on("end", () => resolve(Buffer.concat(chunks)));
    response.on("error", () => reject(new DocumentRefusal("the connection failed while it was read")));
    response.on("close", () => {
      if (!response.complete) reject(new DocumentRefusal("the connection closed before it was read"));
    });
  });
}

function get(url: URL, address: string, signal: AbortSignal): Promise<IncomingMessage> {
  const options: RequestOptions = {
    method: "GET",
    headers: { accept: "application/json", "user-agent": "toolsmith-auth" },
    lookup: pinnedLookup(address),
    // A fresh connection each time: no socket of another resolution is reused.
    agent: false,
    signal,
  };
  return new Promise((resolve, reject) => {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const outgoing = send(url, options, resolve);
    outgoing.on("error", () =>
      reject(new DocumentRefusal(signal.aborted ? "it took too long to answer" : "its host could not be reached")),
    );
    outgoing.end();
  });
}

/** GET `url` within `limits`: the parsed JSON document, or a DocumentRefusal saying why not. */
export async function fetchDocument(url: URL, limits: FetchLimits): Promise<FetchedDocument> {
  if (url.protocol !== "https:" && !(limits.development && url.protocol === "http:")) {
    throw new DocumentRefusal("its URL is not https");
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  try {
    const address = await vettedAddress(url, limits, controller.signal);
    const response = await get(url, address, controller.signal);
    try {
      if (response.statusCode !== undefined && response.statusCode >= 300 && response.statusCode < 400) {
        throw new DocumentRefusal(`it answered a redirect (${response.statusCode}), which is not followed`);
      }
      if (response.statusCode !== 200) throw new DocumentRefusal(`it answered HTTP ${response.statusCode}`);
      if (!isJson(response.headers["content-type"])) throw new DocumentRefusal("its content type is not JSON");
      const declared = Number(response.headers["content-length"]);
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        throw new DocumentRefusal(`it is larger than ${limits.maxBytes} bytes`);
      }
      const body = await readBody(response, limits.maxBytes);
      let json: unknown;
      try {
        json = JSON.parse(body.toString("utf8"));
      } catch {
        throw new DocumentRefusal("it is not valid JSON");
      }
      return { json, ...cacheHints(response.headers["cache-control"]) };
    } finally {
      response.destroy();
    }
  } catch (error) {
    if (controller.signal.aborted) throw new DocumentRefusal("it took too long to answer");
    throw error instanceof DocumentRefusal ? error : new DocumentRefusal("it could not be fetched");
  } finally {
    clearTimeout(timer);
  }
}
