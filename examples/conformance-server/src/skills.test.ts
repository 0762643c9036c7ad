import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient, SkillVerificationError } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { end } from "../../../scripts/child-processes.js";
import { spawnHttp } from "../../../scripts/spawn-http.js";
import { SKILLS_DIR } from "./node-fixtures.js";
import { connect, ERAS, type Mode, serverPath } from "./peer.test-util.js";

// The official SDK v2 skills client (@modelcontextprotocol/client/ext/skills, SEP-2640) against the built server over
// stdio and Streamable HTTP: it lists, gets and reads skills, verifying each file's size, digest and SKILL.md
// frontmatter as hosts must.

const PDF = "skill://pdf-processing/SKILL.md";
const onDisk = (path: string) => readFileSync(join(SKILLS_DIR, ...path.split("/")), "utf8");

let http: { child: ChildProcess; url: string } | undefined;
beforeAll(async () => {
  http = await spawnHttp([serverPath, "--http"]);
});
afterAll(async () => {
  if (http) await end(http.child);
});

async function overHttp(mode: Mode): Promise<{ client: Client; close(): Promise<void> }> {
  const client = new Client({ name: "skills-test", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL((http as { url: string }).url)));
  return { client, close: () => client.close() };
}

const TRANSPORTS = ERAS.flatMap(([era, mode]) => [
  [`stdio, ${era}`, era, () => connect(mode, { answers: false })] as const,
  [`Streamable HTTP, ${era}`, era, () => overHttp(mode)] as const,
]);

describe.each(TRANSPORTS)("the SDK's SkillsClient (%s)", (_name, era, open) => {
  it("lists every skill with its whole manifest, gets one, and reads and verifies its files", async () => {
    const { client, close } = await open();
    try {
      const skills = new SkillsClient(client);
      expect(skills.supported).toBe(true);
      expect(skills.directoryRead).toBe(true);
      const listing = await skills.list();
      expect(listing.invalid).toEqual([]);
      expect(listing.skills.map((skill) => skill.uri)).toEqual(["skill://acme/billing/refunds/SKILL.md", PDF]);
      const pdf = listing.skills[1];
      if (pdf === undefined) throw new Error("no pdf-processing entry");
      expect(pdf.frontmatter).toEqual({
        name: "pdf-processing",
        description: "Extract, fill, and assemble PDF documents",
        license: "Apache-2.0",
        metadata: { version: "2.1" },
      });
      expect(
        pdf.resources !== "dynamic" && pdf.resources.map((file) => file.uri.slice("skill://pdf-processing/".length)),
      ).toEqual([
        "SKILL.md",
        "references/FORMS.md",
        "scripts/extract.py",
        "templates/invoice.md",
        "templates/purchase-order.md",
        "templates/regional/eu-invoice.md",
      ]);
      // The caching attributes exist from 2026-07-28 on, where the client requires them.
      if (era === "stateless era") expect(listing).toMatchObject({ ttlMs: 60_000, cacheScope: "public" });

      const got = await skills.get(PDF);
      expect(got.skill).toEqual(pdf);

      const manifest = await skills.read(pdf);
      expect(manifest).toMatchObject({
        verified: true,
        frontmatter: pdf.frontmatter,
        text: onDisk("pdf-processing/SKILL.md"),
      });
      const forms = await skills.read(pdf, "references/FORMS.md");
      expect(forms).toMatchObject({ verified: true, text: onDisk("pdf-processing/references/FORMS.md") });
      // Not in the entry: refused before any request, as the text requires of a host.
      await expect(skills.read(pdf, "../acme/billing/refunds/SKILL.md")).rejects.toBeInstanceOf(SkillVerificationError);

      const templates = await skills.readDirectory("skill://pdf-processing/templates");
      expect(templates.resources.map(({ uri, mimeType }) => ({ uri, mimeType }))).toEqual([
        { uri: "skill://pdf-processing/templates/invoice.md", mimeType: "text/markdown" },
        { uri: "skill://pdf-processing/templates/purchase-order.md", mimeType: "text/markdown" },
        { uri: "skill://pdf-processing/templates/regional", mimeType: "inode/directory" },
      ]);
      // The text's directory result is a PaginatedResult; the client's 2026-07-28 envelope also wants the caching
      // attributes, which the server sends (a result may carry more than its type names): both are satisfied.
      if (era === "stateless era") expect(templates).toMatchObject({ ttlMs: 60_000, cacheScope: "public" });

      await expect(skills.get("skill://nope/SKILL.md")).rejects.toMatchObject({ code: -32602 });
    } finally {
      await close();
    }
  });
});
