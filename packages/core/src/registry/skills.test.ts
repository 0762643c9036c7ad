import { describe, expect, it } from "vitest";
import { createServer, ErrorCode, type Server } from "../index.js";
import { HANDSHAKE_VERSIONS, STATELESS_VERSIONS } from "../protocol/versions.js";
import { createTestClient } from "../testing/client.js";
import { definitionError, rpcError } from "../testing/expect-errors.test-util.js";
import { skillDigest } from "./skill-digest.js";

const REVISIONS = [...HANDSHAKE_VERSIONS, ...STATELESS_VERSIONS];
const SKILLS = "io.modelcontextprotocol/skills";

const REFUNDS_MD = [
  "---",
  "name: refunds",
  "description: Process customer refund requests per company policy",
  "license: Apache-2.0",
  "metadata:",
  '  version: "2.1"',
  "  owner: billing",
  "---",
  "",
  "# Refunds",
  "",
  "Read `examples/email.md` first.",
  "",
].join("\n");

// Checked against WebCrypto in skill-digest.test.ts.
const digestOf = (content: string | Uint8Array) =>
  skillDigest(typeof content === "string" ? new TextEncoder().encode(content) : content);
const byteLength = (text: string) => new TextEncoder().encode(text).length;

function skillServer(): Server {
  const server = createServer({ name: "skills-test", version: "1.0.0" });
  server.skill({
    path: "acme/billing/refunds",
    files: {
      "SKILL.md": REFUNDS_MD,
      "examples/email.md": "Dear customer,\n",
      "assets/logo.bin": new Uint8Array([0, 255, 1, 254]),
    },
  });
  server.skill({
    path: "git-workflow",
    files: { "SKILL.md": "---\nname: git-workflow\ndescription: Branch and commit as the team does\n---\nBody\n" },
  });
  return server;
}

describe("skills, in every revision", () => {
  it.each(REVISIONS)("%s: declares the extension with directoryRead, and the resources capability", async (version) => {
    const client = await createTestClient(skillServer(), { protocolVersion: version });
    const capabilities = client.serverResult.capabilities as Record<string, Record<string, unknown>>;
    expect(capabilities.extensions?.[SKILLS]).toEqual({ directoryRead: true });
    expect(capabilities.resources).toBeDefined();
  });

  it.each(REVISIONS)(
    "%s: skills/list sends each entry whole: verbatim frontmatter, every file's digest and size",
    async (version) => {
      const client = await createTestClient(skillServer(), { protocolVersion: version });
      const result = await client.request("skills/list", {});
      const skills = result.skills as Record<string, unknown>[];
      expect(skills.map((skill) => skill.uri)).toEqual([
        "skill://acme/billing/refunds/SKILL.md",
        "skill://git-workflow/SKILL.md",
      ]);
      expect(skills[0]).toEqual({
        uri: "skill://acme/billing/refunds/SKILL.md",
        frontmatter: {
          name: "refunds",
          description: "Process customer refund requests per company policy",
          license: "Apache-2.0",
          metadata: { version: "2.1", owner: "billing" },
        },
        resources: [
          { uri: "skill://acme/billing/refunds/SKILL.md", digest: digestOf(REFUNDS_MD), size: byteLength(REFUNDS_MD) },
          {
            uri: "skill://acme/billing/refunds/assets/logo.bin",
            digest: digestOf(new Uint8Array([0, 255, 1, 254])),
            size: 4,
          },
          { uri: "skill://acme/billing/refunds/examples/email.md", digest: digestOf("Dear customer,\n"), size: 15 },
        ],
      });
      // The cache attributes exist from 2026-07-28 on, and are required there.
      if (version >= "2026-07-28")
        expect(result).toMatchObject({ ttlMs: 60_000, cacheScope: "public", resultType: "complete" });
      else expect(result).not.toHaveProperty("ttlMs");
    },
  );

  it.each(REVISIONS)("%s: skills/get answers any served skill, and -32602 for any other URI", async (version) => {
    const client = await createTestClient(skillServer(), { protocolVersion: version });
    const got = await client.request("skills/get", { uri: "skill://git-workflow/SKILL.md" });
    expect((got.skill as { uri: string }).uri).toBe("skill://git-workflow/SKILL.md");
    expect(got).not.toHaveProperty("nextCursor");
    if (version >= "2026-07-28") expect(got).toMatchObject({ ttlMs: 60_000, cacheScope: "public" });
    for (const uri of [
      "skill://nope/SKILL.md",
      "skill://git-workflow",
      "skill://acme/billing/refunds/examples/email.md",
    ]) {
      const error = await rpcError(client.request("skills/get", { uri }));
      expect(error.code).toBe(ErrorCode.InvalidParams);
      expect(error.message).toBe(`No skill is served at ${uri}`);
    }
  });

  it.each(REVISIONS)(
    "%s: skill files are resources, SKILL.md named and described from its frontmatter",
    async (version) => {
      const client = await createTestClient(skillServer(), { protocolVersion: version });
      const listed = await client.listResources();
      expect(listed.find((resource) => resource.uri === "skill://acme/billing/refunds/SKILL.md")).toEqual({
        uri: "skill://acme/billing/refunds/SKILL.md",
        name: "refunds",
        description: "Process customer refund requests per company policy",
        mimeType: "text/markdown",
      });
      const read = await client.readResource("skill://acme/billing/refunds/SKILL.md");
      expect(read.contents).toEqual([
        { uri: "skill://acme/billing/refunds/SKILL.md", mimeType: "text/markdown", text: REFUNDS_MD },
      ]);
      const bytes = await client.readResource("skill://acme/billing/refunds/assets/logo.bin");
      expect(bytes.contents[0]).toMatchObject({ blob: btoa(String.fromCharCode(0, 255, 1, 254)) });
    },
  );

  it.each(REVISIONS)(
    "%s: resources/directory/read lists direct children, subdirectories as inode/directory",
    async (version) => {
      const client = await createTestClient(skillServer(), { protocolVersion: version });
      const root = await client.request("resources/directory/read", { uri: "skill://acme/billing/refunds" });
      expect(root.resources).toEqual([
        {
          uri: "skill://acme/billing/refunds/SKILL.md",
          name: "SKILL.md",
          mimeType: "text/markdown",
          size: byteLength(REFUNDS_MD),
        },
        { uri: "skill://acme/billing/refunds/assets", name: "assets", mimeType: "inode/directory" },
        { uri: "skill://acme/billing/refunds/examples", name: "examples", mimeType: "inode/directory" },
      ]);
      const examples = await client.request("resources/directory/read", {
        uri: "skill://acme/billing/refunds/examples",
      });
      expect(examples.resources).toEqual([
        {
          uri: "skill://acme/billing/refunds/examples/email.md",
          name: "email.md",
          mimeType: "text/markdown",
          size: 15,
        },
      ]);
      // Above a skill, each level of its path is a directory too, down to the skill's root.
      const prefix = await client.request("resources/directory/read", { uri: "skill://acme/billing" });
      expect(prefix.resources).toEqual([
        { uri: "skill://acme/billing/refunds", name: "refunds", mimeType: "inode/directory" },
      ]);
      expect((await client.request("resources/directory/read", { uri: "skill://acme" })).resources).toEqual([
        { uri: "skill://acme/billing", name: "billing", mimeType: "inode/directory" },
      ]);
      for (const uri of [
        "skill://acme/billing/refunds/SKILL.md",
        "skill://acme/bil",
        "skill://",
        "skill://nope",
        "skill://acme/billing/refunds/",
      ]) {
        const error = await rpcError(client.request("resources/directory/read", { uri }));
        expect(error.code).toBe(ErrorCode.InvalidParams);
      }
    },
  );

  it("skills/list pages by whole entries, never splitting one", async () => {
    const server = createServer({ name: "paged", version: "1.0.0", pageSize: 2 });
    for (const name of ["a", "b", "c", "d", "e"]) {
      server.skill({
        path: `team/${name}`,
        files: {
          "SKILL.md": `---\nname: ${name}\ndescription: Skill ${name}\n---\n`,
          "one.md": "1",
          "two.md": "2",
        },
      });
    }
    const client = await createTestClient(server, { protocolVersion: "2026-07-28" });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.request("skills/list", cursor === undefined ? {} : { cursor });
      for (const skill of page.skills as { uri: string; resources: unknown[] }[]) {
        expect(skill.resources).toHaveLength(3);
        seen.push(skill.uri);
      }
      cursor = page.nextCursor as string | undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual(["a", "b", "c", "d", "e"].map((name) => `skill://team/${name}/SKILL.md`));
  });

  it("a server without skills has none of the methods (-32601)", async () => {
    const server = createServer({ name: "plain", version: "1.0.0" });
    server.resource({ uri: "docs://a", handler: () => "a" });
    for (const version of ["2025-11-25", "2026-07-28"] as const) {
      const client = await createTestClient(server, { protocolVersion: version });
      for (const method of ["skills/list", "skills/get", "resources/directory/read"]) {
        const error = await rpcError(client.request(method, { uri: "skill://x/SKILL.md" }));
        expect(error.code).toBe(ErrorCode.MethodNotFound);
      }
    }
  });
});

describe("hostile requests", () => {
  it.each(["2025-11-25", "2026-07-28"] as const)(
    "%s: each is -32602, never a crash or a file outside a skill",
    async (version) => {
      const client = await createTestClient(skillServer(), { protocolVersion: version });
      const hostile: [string, Record<string, unknown>][] = [
        ["skills/get", {}],
        ["skills/get", { uri: 5 }],
        ["skills/get", { uri: ["skill://git-workflow/SKILL.md"] }],
        ["skills/get", { uri: "skill://git-workflow/../git-workflow/SKILL.md" }],
        ["skills/get", { uri: "skill://acme%2Fbilling%2Frefunds/SKILL.md" }],
        ["skills/get", { uri: "SKILL://git-workflow/SKILL.md" }],
        ["skills/get", { uri: `skill://${"a/".repeat(100_000)}SKILL.md` }],
        ["skills/list", { cursor: "forged" }],
        ["skills/list", { cursor: 7 }],
        ["resources/directory/read", { uri: "skill://acme/billing/refunds/examples/.." }],
        ["resources/directory/read", { uri: "skill://acme/billing/refunds%2Fexamples" }],
        ["resources/directory/read", { uri: "skill://acme/billing/refunds", cursor: "forged" }],
      ];
      for (const [method, params] of hostile) {
        const error = await rpcError(client.request(method, params));
        expect([method, params, error.code]).toEqual([method, params, ErrorCode.InvalidParams]);
      }
      const escaped = await rpcError(client.readResource("skill://acme/billing/refunds/../../../etc/passwd"));
      expect(escaped.code).toBe(version === "2025-11-25" ? -32002 : ErrorCode.InvalidParams);
    },
  );

  it("a server with skills cannot be mounted, nor a mounted one take skills", () => {
    const parent = createServer({ name: "parent", version: "1.0.0" });
    expect(definitionError(() => parent.mount("docs", skillServer())).message).toContain(
      "has skills, which a module cannot serve",
    );
    const module = createServer({ name: "module", version: "1.0.0" });
    parent.mount("m", module);
    const files = { "SKILL.md": "---\nname: late\ndescription: Late\n---\n" };
    expect(definitionError(() => module.skill({ path: "late", files })).message).toContain(
      "a module cannot serve skills",
    );
  });
});

describe("a guarded skill answers exactly as a missing one", () => {
  function guarded(): Server {
    const server = skillServer();
    server.skill({
      path: "secret",
      guard: (ctx) => ctx.auth?.scopes.includes("admin") === true,
      files: { "SKILL.md": "---\nname: secret\ndescription: Admins only\n---\n", "notes/a.md": "a" },
    });
    return server;
  }
  const user = { token: "t", clientId: "c", subject: "user", scopes: ["read"] };
  const admin = { token: "t", clientId: "c", subject: "admin", scopes: ["admin"] };

  it.each(["2025-11-25", "2026-07-28"] as const)("%s", async (version) => {
    const hidden = await createTestClient(guarded(), { protocolVersion: version, auth: user });
    const shown = await createTestClient(guarded(), { protocolVersion: version, auth: admin });
    const uris = async (client: typeof hidden) =>
      ((await client.request("skills/list", {})).skills as { uri: string }[]).map((skill) => skill.uri);
    expect(await uris(hidden)).not.toContain("skill://secret/SKILL.md");
    expect(await uris(shown)).toContain("skill://secret/SKILL.md");
    const missing = await rpcError(hidden.request("skills/get", { uri: "skill://nope/SKILL.md" }));
    const refused = await rpcError(hidden.request("skills/get", { uri: "skill://secret/SKILL.md" }));
    expect([refused.code, refused.message.replace("secret", "nope")]).toEqual([missing.code, missing.message]);
    const dirMissing = await rpcError(hidden.request("resources/directory/read", { uri: "skill://nope/notes" }));
    const dirRefused = await rpcError(hidden.request("resources/directory/read", { uri: "skill://secret/notes" }));
    expect([dirRefused.code, dirRefused.message.replace("secret", "nope")]).toEqual([
      dirMissing.code,
      dirMissing.message,
    ]);
    const readMissing = await rpcError(hidden.readResource("skill://nope/SKILL.md"));
    const readRefused = await rpcError(hidden.readResource("skill://secret/SKILL.md"));
    expect([readRefused.code, readRefused.message.replace("secret", "nope")]).toEqual([
      readMissing.code,
      readMissing.message,
    ]);
    expect((await shown.request("skills/get", { uri: "skill://secret/SKILL.md" })).skill).toBeDefined();
    // What the listing shows depends on the caller: never cached publicly.
    if (version === "2026-07-28")
      expect(await shown.request("skills/list", {})).toMatchObject({ cacheScope: "private" });
  });
});

describe("skills refused at registration, naming the file", () => {
  const server = () => createServer({ name: "refusals", version: "1.0.0" });
  const md = (name: string, extra = "") => `---\nname: ${name}\ndescription: A skill\n${extra}---\nBody\n`;
  const refuse = (definition: Parameters<Server["skill"]>[0]) =>
    definitionError(() => server().skill(definition)).message;

  it("paths that leave the skill's folder, or would need encoding", () => {
    for (const file of [
      "../etc/passwd",
      "/etc/passwd",
      "a/../../x",
      "./a.md",
      "a//b.md",
      "a%2Fb.md",
      "a\\b.md",
      ".hidden",
      "a b.md",
      "a\0b",
    ]) {
      expect(refuse({ path: "ok", files: { "SKILL.md": md("ok"), [file]: "x" } })).toContain("is not allowed");
    }
    for (const path of ["../ok", "/ok", "a/../ok", "a%2F/ok", "", "a//ok"]) {
      expect(refuse({ path, files: { "SKILL.md": md("ok") } })).toMatch(/not allowed|needs a path/);
    }
  });

  it("a SKILL.md without frontmatter, or whose name breaks the rules or its path", () => {
    expect(refuse({ path: "ok", files: { "SKILL.md": "# no frontmatter\n" } })).toBe(
      'Skill "ok", SKILL.md: line 1: SKILL.md must begin with a --- line opening its YAML frontmatter',
    );
    expect(refuse({ path: "ok", files: { "SKILL.md": "---\nname: ok\n" } })).toContain("no closing --- line");
    expect(refuse({ path: "ok", files: { "SKILL.md": md("other") } })).toContain(
      'must equal the last segment of the skill\'s path, "ok"',
    );
    expect(refuse({ path: "Bad--Name", files: { "SKILL.md": md("Bad--Name") } })).toContain("lowercase letters");
    expect(refuse({ path: "ok", files: { "SKILL.md": "---\nname: ok\n---\n" } })).toContain("description of 1 to 1024");
    expect(
      refuse({ path: "ok", files: { "SKILL.md": md("ok", "metadata:\n  io.modelcontextprotocol/x: value\n") } }),
    ).toContain("reserved");
    expect(refuse({ path: "ok", files: { "SKILL.md": md("ok", "version: 010\n") } })).toBe(
      'Skill "ok", SKILL.md: line 4: "010" reads differently in YAML parsers: quote it',
    );
    expect(refuse({ path: "ok", files: { "README.md": "x" } })).toContain("has no SKILL.md at its root");
    expect(refuse({ path: "ok", files: { "SKILL.md": new Uint8Array([0xff, 0xfe]) } })).toContain(
      "SKILL.md: is not UTF-8",
    );
  });

  it("the extension's limits: 512 files, 16 MiB", () => {
    const many: Record<string, string> = { "SKILL.md": md("ok") };
    for (let i = 0; i < 512; i++) many[`f${i}.md`] = "x";
    expect(refuse({ path: "ok", files: many })).toContain("has 513 files; the skills extension allows 512 per skill");
    const big = new Uint8Array(16 * 1024 * 1024);
    expect(refuse({ path: "ok", files: { "SKILL.md": md("ok"), "big.bin": big } })).toContain(
      "big.bin: its files pass 16777216 bytes",
    );
  });

  it("the same path twice", () => {
    const built = server();
    built.skill({ path: "ok", files: { "SKILL.md": md("ok") } });
    expect(definitionError(() => built.skill({ path: "ok", files: { "SKILL.md": md("ok") } })).message).toContain(
      "defined twice",
    );
  });
});

describe("nested skills and removal", () => {
  it("a skill whose file resource is disabled or removed (as another process's handle op does) is not served", async () => {
    const server = skillServer();
    const client = await createTestClient(server, { protocolVersion: "2026-07-28" });
    const listed = async () => ((await client.request("skills/list", {})).skills as { uri: string }[]).length;
    expect(await listed()).toBe(2);
    const file = server.registered("resource", "skill://acme/billing/refunds/examples/email.md");
    file?.disable();
    expect(await listed()).toBe(1);
    await rpcError(client.request("skills/get", { uri: "skill://acme/billing/refunds/SKILL.md" }));
    file?.enable();
    expect(await listed()).toBe(2);
    file?.remove();
    expect(await listed()).toBe(1);
  });

  it("a nested skill's files are its enclosing skill's too; removing one keeps what the other lists", async () => {
    const server = createServer({ name: "nested", version: "1.0.0" });
    const inner = "---\nname: inner\ndescription: Inner\n---\n";
    const outer = server.skill({
      path: "outer",
      files: { "SKILL.md": "---\nname: outer\ndescription: Outer\n---\n", "inner/SKILL.md": inner },
    });
    server.skill({ path: "outer/inner", files: { "SKILL.md": inner } });
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect(((await client.request("skills/list", {})).skills as unknown[]).length).toBe(2);
    outer.remove();
    expect(outer.removed).toBe(true);
    expect(((await client.request("skills/list", {})).skills as { uri: string }[]).map((skill) => skill.uri)).toEqual([
      "skill://outer/inner/SKILL.md",
    ]);
    expect((await client.readResource("skill://outer/inner/SKILL.md")).contents[0]).toMatchObject({ text: inner });
    await rpcError(client.readResource("skill://outer/SKILL.md"));
    expect(client.notifications.map((note) => note.method)).toContain("notifications/resources/list_changed");
  });
});
