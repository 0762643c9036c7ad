import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw, serve } from "./routes.test-util.js";

// The README's `staticFile` example, as written there: the pathname keeps %2F and %5C encoded, so the handler that
// decodes it must keep what it decoded inside its folder.

let base: string;
let root: string;

// The README leaves serveFile to the reader: the file's bytes, or 404.
async function serveFile(file: string): Promise<Response> {
  try {
    return new Response(await readFile(file), { headers: { "content-type": "text/plain" } });
  } catch {
    return new Response(null, { status: 404 });
  }
}

function staticFile(request: Request): Response | Promise<Response> {
  let file: string;
  try {
    file = resolve(root, decodeURIComponent(new URL(request.url).pathname.slice("/static/".length)));
  } catch {
    return new Response(null, { status: 400 }); // a malformed %-escape
  }
  if (!file.startsWith(root + sep) || file.includes("\0")) return new Response(null, { status: 404 });
  return serveFile(file); // your own: the file's bytes as a Response, 404 when there is none
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "toolsmith-static-"));
  root = join(base, "public");
  await mkdir(join(root, "css"), { recursive: true });
  await writeFile(join(root, "css", "site.css"), "body{}");
  await writeFile(join(base, "secret.txt"), "secret");
  await writeFile(join(base, "public-old.txt"), "sibling");
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe("the README's static files route", () => {
  it("serves files under its folder, and nothing outside it however the path is escaped", async () => {
    const url = await serve({ "GET /static/*": staticFile });
    const at = (path: string) =>
      raw(Number(url.port), `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${url.port}\r\nConnection: close\r\n\r\n`);
    expect(await at("/static/css/site.css")).toMatch(/\r\n\r\n[\s\S]*body\{\}/);
    expect(await at("/static/css%2Fsite.css")).toMatch(/\r\n\r\n[\s\S]*body\{\}/);
    for (const path of [
      "/static/..%2Fsecret.txt",
      "/static/css%2F..%2F..%2Fsecret.txt",
      "/static/..%5Csecret.txt",
      "/static/%2E%2E%2Fsecret.txt",
      "/static/..%2Fpublic-old.txt",
      `/static/${encodeURIComponent(join(base, "secret.txt"))}`,
      "/static/css%00.css",
    ]) {
      const answer = await at(path);
      expect(answer, path).toMatch(/^HTTP\/1\.1 404 /);
      expect(answer, path).not.toMatch(/secret|sibling/);
    }
    expect(await at("/static/%E0%A4%A")).toMatch(/^HTTP\/1\.1 400 /);
  });
});
