import { once } from "node:events";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { endTracked, run } from "../../../scripts/child-processes.js";

// The README's "Set up the SDK" as a user follows it: its npm install line into a new project (from the registry,
// with this checkout's packed @toolsmith packages), its tracing.ts, built with tsc and run; the span arrives over OTLP.
const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const temp = mkdtempSync(join(tmpdir(), "otel-readme-"));
afterAll(async () => {
  await endTracked();
  rmSync(temp, { recursive: true, force: true });
});

/** The README's fenced blocks of `lang` in its "Set up the SDK" section. */
function blocks(lang: string): string[] {
  const section = README.split(/^## /m).find((part) => part.startsWith("Set up the SDK")) ?? "";
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, "g"))].map((match) => match[1] ?? "");
}

async function ok(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const outcome = await run(command, args, { cwd, env });
  if (outcome.code !== 0) throw new Error(`${command} ${args.join(" ")}: ${outcome.stdout}\n${outcome.stderr}`);
  return outcome;
}

/** `pnpm pack` (workspace:* becomes a version) into `into`; the tarball's file name. */
async function pack(name: string, into: string): Promise<string> {
  const out = join(temp, `pack-${name}`);
  mkdirSync(out);
  await ok("npx", ["-y", "pnpm@12.4.2", "pack", "--pack-destination", out], join(REPO, "packages", name));
  const [tarball = ""] = readdirSync(out).filter((file) => file.endsWith(".tgz"));
  writeFileSync(join(into, tarball), readFileSync(join(out, tarball)));
  return `file:./${tarball}`;
}

const MAIN = `import { shutdownTracing } from "./tracing.js";
import { createServer } from "@toolsmith/core";
import { createTestClient } from "@toolsmith/core/testing";
import { openTelemetry } from "@toolsmith/otel";

const server = createServer({ name: "traced", version: "1.0.0" });
server.use(openTelemetry());
server.tool({ name: "greet", description: "Greets", handler: () => "hi" });
const client = await createTestClient(server);
process.stdout.write(\`\${JSON.stringify(await client.callTool("greet", {}))}\\n\`);
await shutdownTracing();
`;

interface OtlpSpans {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: { name: string }[] }[];
  }[];
}

async function body(request: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of request) text += chunk;
  return text;
}

describe("the README's SDK set-up", () => {
  it("installs with npm on this Node (engines) without ERESOLVE, builds, and exports the tools/call span over OTLP", {
    timeout: 15 * 60_000,
  }, async () => {
    const [install = ""] = blocks("sh");
    const [tracing = ""] = blocks("ts");
    const specs = install
      .trim()
      .replace(/^npm install /, "")
      .split(/\s+/);
    expect(specs).toContain("@toolsmith/otel");
    expect(tracing).toContain("export async function shutdownTracing()");
    const dir = join(temp, "project");
    mkdirSync(join(dir, "src"), { recursive: true });
    const local = { "@toolsmith/core": await pack("core", dir), "@toolsmith/otel": await pack("otel", dir) };
    // Exactly the README's versions; the unpublished @toolsmith packages from this checkout.
    const dependencies: Record<string, string> = { "@toolsmith/core": local["@toolsmith/core"] };
    for (const spec of specs) {
      const at = spec.lastIndexOf("@");
      const [name, version] = at > 0 ? [spec.slice(0, at), spec.slice(at + 1)] : [spec, ""];
      dependencies[name] = local[name as keyof typeof local] ?? version;
      if (!local[name as keyof typeof local]) expect(version, spec).toMatch(/^\d+\.\d+\.\d+$/);
    }
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({
        name: "traced",
        private: true,
        type: "module",
        dependencies,
        devDependencies: { "@types/node": "20.19.43" },
        overrides: local,
      }),
    );
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          strict: true,
          skipLibCheck: true,
          types: ["node"],
          rootDir: "src",
          outDir: "dist",
        },
      }),
    );
    writeFileSync(join(dir, "src/tracing.ts"), tracing);
    writeFileSync(join(dir, "src/main.ts"), MAIN);
    // A real install, strict as a careful user's: npm's peer resolution said ERESOLVE to OTel 2.x next to api 1.10,
    // and --engine-strict refuses a package whose engines leave out this Node (OTel 3.x wants Node 22.15).
    await ok("npm", ["install", "--no-audit", "--no-fund", "--strict-peer-deps", "--engine-strict"], dir);
    await ok(process.execPath, [join(REPO, "node_modules/typescript/bin/tsc"), "-p", "."], dir);

    // A Collector's OTLP/HTTP endpoint: what arrives at /v1/traces.
    const received: OtlpSpans[] = [];
    const collector = createHttpServer(async (request, response) => {
      if (request.method === "POST" && request.url === "/v1/traces") received.push(JSON.parse(await body(request)));
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    collector.listen(0, "127.0.0.1");
    await once(collector, "listening");
    try {
      const { port } = collector.address() as AddressInfo;
      const env = {
        ...process.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_SERVICE_NAME: "notes",
      };
      const { stdout } = await ok(process.execPath, ["dist/main.js"], dir, env);
      expect(JSON.parse(stdout)).toMatchObject({ content: [{ type: "text", text: "hi" }] });
    } finally {
      collector.close();
    }
    const spans = received.flatMap(({ resourceSpans }) => resourceSpans);
    expect(
      spans.flatMap(({ scopeSpans }) => scopeSpans.flatMap((scope) => scope.spans.map((span) => span.name))),
    ).toEqual(["tools/call greet"]);
    expect(spans[0]?.resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "notes" } });

    // No collector (a newcomer's machine): the exporter retries for seconds and then rejects; the process must
    // still end at once and cleanly, saying the last spans were not sent, not exit 1 with a stack trace.
    const closed = createHttpServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const { port: closedPort } = closed.address() as AddressInfo;
    closed.close();
    await once(closed, "close");
    const noCollector = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${closedPort}` };
    const outcome = await run(process.execPath, ["dist/main.js"], { cwd: dir, env: noCollector });
    expect(outcome.stderr.trim()).toBe("tracing: the last spans were not sent (no answer within 2 s)");
    expect(outcome.code).toBe(0);
  });
});
