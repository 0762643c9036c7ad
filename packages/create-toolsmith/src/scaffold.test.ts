import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULTS, type ProjectOptions, TRANSPORTS } from "./options.js";
import { publishablePackages } from "./pack-local.js";
import { WORKSPACE } from "./process.test-util.js";
import { renderProject, scaffold, targetProblem } from "./scaffold.js";
import { OTEL_VERSIONS, RUNTIME_VERSIONS, TOOLSMITH_VERSION, VERSIONS } from "./versions.js";

const base: ProjectOptions = { name: "my-server", ...DEFAULTS };
const temp = mkdtempSync(join(tmpdir(), "create-toolsmith-unit-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8"));

describe("renderProject", () => {
  it("writes the server, its entry, configs and, unless --no-tests, the test setup", () => {
    expect([...renderProject(base, "/p").keys()].sort()).toEqual([
      ".gitignore",
      "README.md",
      "biome.json",
      "package.json",
      "pnpm-workspace.yaml",
      "src/main.ts",
      "src/server.test.ts",
      "src/server.ts",
      "tsconfig.json",
      "tsconfig.test.json",
      "vitest.config.ts",
    ]);
    const files = renderProject({ ...base, tests: false }, "/p");
    expect([...files.keys()].filter((path) => /test|vitest/.test(path))).toEqual([]);
    expect(JSON.parse(files.get("package.json")!)).not.toHaveProperty("devDependencies.vitest");
    expect(JSON.parse(files.get("package.json")!)).not.toHaveProperty("scripts.test");
  });

  it("tests the server in both eras, in the revisions the project's @toolsmith/core names, with no date of its own", () => {
    const test = renderProject(base, "/p").get("src/server.test.ts")!;
    expect(test).toContain('import { LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION } from "@toolsmith/core";');
    expect(test).toContain("const ERAS = [LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION];");
    expect(test).toContain('describe.each(ERAS)("MyServer (%s)", (protocolVersion) => {');
    expect(test).not.toMatch(/\d{4}-\d{2}-\d{2}/);
  });

  it("has the scripts dev, build, test, start, inspect and lint", () => {
    const { scripts } = JSON.parse(renderProject(base, "/p").get("package.json")!);
    expect(Object.keys(scripts)).toEqual(["build", "dev", "start", "test", "lint", "inspect"]);
    expect(scripts.dev).toBe("toolsmith dev src/main.ts");
    expect(scripts.inspect).toBe("npm run build && npx -y @modelcontextprotocol/inspector node dist/main.js");
  });

  it.each(TRANSPORTS)("depends on the transports it serves (%s)", (transport) => {
    const files = renderProject({ ...base, transport }, "/p");
    const { dependencies } = JSON.parse(files.get("package.json")!);
    expect(Object.keys(dependencies)).toEqual(
      [
        "@toolsmith/core",
        "@toolsmith/decorators",
        ...(transport === "http" ? [] : ["@toolsmith/transport-stdio"]),
        ...(transport === "stdio" ? [] : ["@toolsmith/transport-http"]),
        "zod",
      ].sort(),
    );
    expect(dependencies["@toolsmith/core"]).toBe(`^${TOOLSMITH_VERSION}`);
    const main = files.get("src/main.ts")!;
    expect(main.includes("serveStdio")).toBe(transport !== "http");
    expect(main.includes("listen(")).toBe(transport !== "stdio");
    expect(main.includes("--http")).toBe(transport === "both");
    const readme = files.get("README.md")!;
    for (const host of ["Claude Desktop", "Claude Code", "VS Code", "Cursor"]) expect(readme).toContain(host);
    expect(readme.includes("claude mcp add --transport http")).toBe(transport !== "stdio");
    expect(readme.includes('"command": "node"')).toBe(transport !== "http");
  });

  it("sets the decorator dialect in tsconfig; TC39 tests go through the @toolsmith/vitest plugin", () => {
    const legacy = renderProject({ ...base, dialect: "legacy" }, "/p");
    expect(JSON.parse(legacy.get("tsconfig.json")!).compilerOptions).toMatchObject({
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
    });
    expect(legacy.get("vitest.config.ts")).toContain('include: ["src/**/*.test.ts"]');
    const tc39 = renderProject(base, "/p");
    expect(JSON.parse(tc39.get("tsconfig.json")!).compilerOptions).not.toHaveProperty("experimentalDecorators");
    expect(tc39.get("vitest.config.ts")).toContain("plugins: [toolsmith()]");
    expect(JSON.parse(tc39.get("package.json")!).devDependencies["@toolsmith/vitest"]).toBe(`^${TOOLSMITH_VERSION}`);
    expect(JSON.parse(legacy.get("package.json")!).devDependencies).not.toHaveProperty("@toolsmith/vitest");
    expect(JSON.parse(legacy.get("package.json")!).devDependencies).toHaveProperty("@toolsmith/cli");
    for (const files of [legacy, tc39]) {
      expect(JSON.parse(files.get("tsconfig.test.json")!).compilerOptions).toEqual({ noEmit: true });
    }
  });

  it("sends packed @toolsmith/* dependencies to the tarballs, for npm and pnpm", () => {
    const file = "file:toolsmith-packages/toolsmith-core-0.1.0.tgz";
    const files = renderProject(base, "/p", { "@toolsmith/core": file });
    const pkg = JSON.parse(files.get("package.json")!);
    expect(pkg.dependencies["@toolsmith/core"]).toBe(file);
    expect(pkg.overrides).toEqual({ "@toolsmith/core": file });
    expect(files.get("pnpm-workspace.yaml")).toContain(`overrides:\n  "@toolsmith/core": "${file}"`);
  });

  it("pins what this workspace builds and tests with", () => {
    const root = read("../../../package.json");
    const core = read("../../core/package.json");
    expect(core.version).toBe(TOOLSMITH_VERSION);
    // Read from this package's package.json, and every package a project gets is released at that same version.
    expect(read("../package.json").version).toBe(TOOLSMITH_VERSION);
    for (const { dir } of publishablePackages(WORKSPACE)) {
      expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version).toBe(TOOLSMITH_VERSION);
    }
    expect(VERSIONS.zod).toBe(core.dependencies.zod);
    for (const name of ["typescript", "vitest", "@types/node", "@biomejs/biome"] as const) {
      expect(VERSIONS[name]).toBe(root.devDependencies[name]);
    }
  });
});

describe("--redis and --otel", () => {
  const otelReadme = readFileSync(new URL("../../otel/README.md", import.meta.url), "utf8");
  const setUp = otelReadme.split(/^## /m).find((part) => part.startsWith("Set up the SDK")) ?? "";

  it("serves HTTP on the Redis engine when REDIS_URL is set, and says so in the README", () => {
    const files = renderProject({ ...base, transport: "http", redis: true }, "/p");
    expect(JSON.parse(files.get("package.json")!).dependencies["@toolsmith/redis"]).toBe(`^${TOOLSMITH_VERSION}`);
    expect(files.get("src/main.ts")).toContain(
      "const server = new MyServer(REDIS_URL ? { engine: createRedisEngine({ url: REDIS_URL }) } : {});",
    );
    expect(files.get("README.md")).toContain("## Redis");
    expect(renderProject({ ...base, transport: "http" }, "/p").get("src/main.ts")).not.toContain("redis");
  });

  it("traces with the otel README's set-up and versions, and sends the last spans before the process ends", () => {
    const files = renderProject({ ...base, transport: "both", otel: true }, "/p");
    const { dependencies } = JSON.parse(files.get("package.json")!);
    expect(dependencies).toMatchObject({ "@toolsmith/otel": `^${TOOLSMITH_VERSION}`, ...OTEL_VERSIONS });
    // The README's install line names exactly these versions; this package's devDependencies hold them, so that a
    // generated project's offline install finds them in the store.
    const install = /```sh\n(npm install [^\n]+)/.exec(setUp)?.[1] ?? "";
    for (const [name, version] of Object.entries(OTEL_VERSIONS)) expect(install).toContain(` ${name}@${version}`);
    const devDependencies = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
      .devDependencies as Record<string, string>;
    expect(devDependencies).toMatchObject(OTEL_VERSIONS);
    const tracing = /```ts\n([\s\S]*?)```/.exec(setUp)?.[1];
    // Word for word: the README names the service "my-server", as this project is named.
    expect(files.get("src/tracing.ts")).toBe(tracing);
    expect(renderProject({ ...base, name: "@me/notes", otel: true }, "/p").get("src/tracing.ts")).toContain(
      '?? "@me/notes" }',
    );
    expect(files.get("src/server.ts")).toContain("@use(openTelemetry())\nexport class MyServer extends McpServer {");
    const main = files.get("src/main.ts")!;
    expect(main).toContain('import { shutdownTracing } from "./tracing.js";');
    expect(main).toContain("const connection = serveStdio(server, { exitOnEnd: false });");
    expect(main).toMatch(/await http\.close\(\);\n\s+await shutdownTracing\(\);/);
    expect(files.get("README.md")).toContain("## Tracing");
  });

  it("packs every publishable @toolsmith package of the checkout, read from it", () => {
    const names = publishablePackages(WORKSPACE).map(({ name }) => name);
    expect(names).toEqual(expect.arrayContaining(["@toolsmith/core", "@toolsmith/redis", "@toolsmith/otel"]));
    expect(names).not.toContain("create-toolsmith");
    expect(names.length).toBeGreaterThanOrEqual(8);
  });
});

describe("--auth", () => {
  const http = { ...base, transport: "http" } as const;

  it("verify: jwtVerifier on ISSUER and AUDIENCE, given to listen, with the README saying how", () => {
    const files = renderProject({ ...http, auth: "verify" }, "/p");
    expect(JSON.parse(files.get("package.json")!).dependencies["@toolsmith/auth"]).toBe(`^${TOOLSMITH_VERSION}`);
    const signIn = files.get("src/sign-in.ts")!;
    expect(signIn).toContain('import { jwtVerifier } from "@toolsmith/auth";');
    expect(signIn).toContain('authenticate: jwtVerifier({ issuer, audience: required("AUDIENCE") }),');
    expect(signIn).toContain('const issuer = required("ISSUER");');
    expect(signIn).toContain("resourceMetadata: { authorizationServers: [issuer] },");
    const main = files.get("src/main.ts")!;
    expect(main).toContain('import { signIn } from "./sign-in.js";');
    expect(main).toContain("await listen(server, signIn());");
    const readme = files.get("README.md")!;
    expect(readme).toContain("## Sign-in");
    expect(readme).toContain("ISSUER=https://login.example.com AUDIENCE=http://127.0.0.1:3000/mcp npm start");
  });

  it("proxy: oauthProxy in front of oidcUpstream from the OIDC_* variables, sealed with AUTH_SECRET", () => {
    const files = renderProject({ ...base, transport: "both", otel: true, auth: "proxy" }, "/p");
    const signIn = files.get("src/sign-in.ts")!;
    expect(signIn).toContain('import { oauthProxy, oidcUpstream } from "@toolsmith/auth";');
    for (const name of ["OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "AUTH_SECRET"]) {
      expect(signIn).toContain(`required("${name}")`);
    }
    expect(signIn).toContain("return oauthProxy(server.toServer(), {");
    const main = files.get("src/main.ts")!;
    expect(main).toContain("const http = await listen(server, signIn(server));");
    // Over stdio nothing signs in.
    expect(main).toContain("const connection = serveStdio(server, { exitOnEnd: false });");
    expect(files.get("README.md")).toContain("/oauth/callback");
  });

  it("adds a tool that needs a scope, and tests it in memory as callers with and without it", () => {
    const files = renderProject({ ...http, auth: "verify" }, "/p");
    expect(files.get("src/server.ts")).toContain(
      '@tool({ description: "Forget everyone greeted so far", scopes: ["greetings:reset"] })\n  reset() {',
    );
    const test = files.get("src/server.test.ts")!;
    expect(test).toContain('const resetter: AuthInfo = { subject: "ada", scopes: ["greetings:reset"] };');
    expect(test).toContain("createTestClient(new MyServer(), { protocolVersion, auth: resetter })");
    expect(test).toContain("createTestClient(new MyServer(), { protocolVersion, auth: reader })");
    expect(test).toContain("code: ErrorCode.InsufficientScope,");
    expect(test.match(/^ {2}it\(/gm)).toHaveLength(7);
  });

  it("none: no sign-in file, no @toolsmith/auth, no scoped tool", () => {
    const files = renderProject(http, "/p");
    expect(files.has("src/sign-in.ts")).toBe(false);
    expect(files.get("package.json")).not.toContain("@toolsmith/auth");
    expect(files.get("src/server.ts")).not.toContain("scopes");
    expect(files.get("src/server.test.ts")).not.toContain("AuthInfo");
    expect(files.get("src/main.ts")).toContain("await listen(server);");
  });
});

describe("--runtime", () => {
  const pkgOf = (files: Map<string, string>) => JSON.parse(files.get("package.json")!);

  it("bun: Bun.serve with the web-standard handler, or stdio; run with bun; typed with @types/bun", () => {
    const files = renderProject({ ...base, runtime: "bun", transport: "both" }, "/p");
    const main = files.get("src/main.ts")!;
    expect(main).toMatch(/^#!\/usr\/bin\/env bun\n/);
    expect(main).toContain('import { createHttpHandler } from "@toolsmith/transport-http";');
    expect(main).toContain(
      'const http = Bun.serve({ hostname: "127.0.0.1", port: Number(process.env.PORT ?? 3000), fetch: handler });',
    );
    expect(main).toContain("  serveStdio(server);");
    expect(main).not.toContain("listen(");
    const pkg = pkgOf(files);
    expect(pkg.scripts).toMatchObject({ start: "bun dist/main.js", "start:http": "bun dist/main.js --http" });
    expect(pkg.devDependencies["@types/bun"]).toBe(RUNTIME_VERSIONS["@types/bun"]);
    expect(JSON.parse(files.get("tsconfig.json")!).compilerOptions.types).toEqual(["node", "bun"]);
    const readme = files.get("README.md")!;
    expect(readme).toContain('"command": "bun"');
    expect(readme).toContain("claude mcp add my-server -- bun /p/dist/main.js");
    // The same in-memory tests as on Node: the class does not depend on the runtime.
    expect(files.get("src/server.test.ts")).toBe(renderProject(base, "/p").get("src/server.test.ts"));
  });

  it("deno: Deno.serve, or stdio; deno run with the network and the environment; tsc knows Deno's few APIs", () => {
    const files = renderProject({ ...base, runtime: "deno", transport: "http" }, "/p");
    const main = files.get("src/main.ts")!;
    expect(main).toContain("const http = Deno.serve(");
    expect(main).toContain('port: Number(Deno.env.get("PORT") ?? 3000),');
    expect(main).not.toContain("serveStdio");
    expect(files.get("src/deno.d.ts")).toContain("declare namespace Deno {");
    expect(JSON.parse(files.get("deno.json")!)).toEqual({ nodeModulesDir: "manual", lock: false });
    expect(pkgOf(files).scripts.start).toBe("deno run --allow-net --allow-env dist/main.js");
    const stdio = renderProject({ ...base, runtime: "deno" }, "/p");
    expect(stdio.get("src/main.ts")).toContain("serveStdio(server);");
    expect(stdio.get("README.md")).toContain(
      "claude mcp add my-server -- deno run --allow-net --allow-env /p/dist/main.js",
    );
  });

  it("workers: a module Worker sealing with the STATE_KEY secret, served by wrangler dev, deployed by wrangler deploy", () => {
    const files = renderProject({ ...base, runtime: "workers", transport: "http" }, "/p");
    expect([...files.keys()].filter((path) => !renderProject(base, "/p").has(path)).sort()).toEqual([
      ".dev.vars",
      "src/worker.ts",
      "wrangler.jsonc",
    ]);
    expect(files.has("src/main.ts")).toBe(false);
    const worker = files.get("src/worker.ts")!;
    expect(worker).toContain("export default {");
    expect(worker).toContain("new MyServer({ stateKey: env.STATE_KEY })");
    expect(files.get(".dev.vars")).toMatch(/^STATE_KEY=[\w-]{43}\n$/);
    expect(renderProject({ ...base, runtime: "workers", transport: "http" }, "/p").get(".dev.vars")).not.toBe(
      files.get(".dev.vars"),
    );
    expect(files.get(".gitignore")).toContain(".dev.vars\n.wrangler/\n");
    const wrangler = files.get("wrangler.jsonc")!;
    const config = JSON.parse(wrangler.replace(/^\/\/.*$/gm, ""));
    expect(config).toMatchObject({ name: "my-server", main: "dist/worker.js" });
    expect(config).not.toHaveProperty("compatibility_flags");
    expect(config).not.toHaveProperty("vars.STATE_KEY");
    const pkg = pkgOf(files);
    expect(pkg.devDependencies.wrangler).toBe(RUNTIME_VERSIONS.wrangler);
    expect(pkg.scripts).toMatchObject({ start: "wrangler dev", deploy: "tsc && wrangler deploy" });
    expect(pkg).not.toHaveProperty("bin");
    expect(files.get("pnpm-workspace.yaml")).toContain("  workerd: true\n");
    const readme = files.get("README.md")!;
    expect(readme).toContain("npx wrangler deploy");
    expect(readme).toContain("npx wrangler secret put STATE_KEY");
    expect(readme).toContain("claude mcp add --transport http my-server http://127.0.0.1:8787/mcp");
    expect(readme).not.toContain('"command": "node"');
  });

  it("pins @types/bun and wrangler as this package does, so an offline install finds them", () => {
    expect(read("../package.json").devDependencies).toMatchObject(RUNTIME_VERSIONS);
  });
});

describe("the target directory", () => {
  it("is refused when not empty, unless forced", async () => {
    const dir = join(temp, "busy");
    mkdirSync(dir);
    expect(targetProblem(dir, false)).toBeUndefined();
    writeFileSync(join(dir, "notes.txt"), "mine");
    expect(targetProblem(dir, false)).toBe(
      `${dir} is not empty (1 entry): choose another directory, or pass --force to write into it`,
    );
    expect(targetProblem(dir, true)).toBeUndefined();
    expect(targetProblem(join(dir, "notes.txt"), true)).toMatch(/exists and is not a directory/);
    await scaffold({ ...base, dir });
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("mine");
    expect(readFileSync(join(dir, "src/server.ts"), "utf8")).toContain("export class MyServer extends McpServer");
  });
});
