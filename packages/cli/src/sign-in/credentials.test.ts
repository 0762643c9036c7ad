import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CredentialStore, configDir, serverKey } from "./credentials.js";

const made: string[] = [];
function store(): CredentialStore {
  const home = mkdtempSync(join(tmpdir(), "toolsmith-credentials-"));
  made.push(home);
  return new CredentialStore(join(home, "toolsmith"));
}
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const URL_A = "https://mcp.example.com/mcp";
const tokens = { access_token: "at-secret", token_type: "Bearer", refresh_token: "rt-secret" };

describe("the credential file", () => {
  it("is under $XDG_CONFIG_HOME/toolsmith, else ~/.config/toolsmith (a relative XDG_CONFIG_HOME is ignored)", () => {
    expect(configDir({ XDG_CONFIG_HOME: "/x/config" })).toBe("/x/config/toolsmith");
    expect(configDir({ XDG_CONFIG_HOME: "relative" })).toMatch(/\.config\/toolsmith$/);
    expect(configDir({})).toMatch(/\.config\/toolsmith$/);
  });

  it("keeps a server's tokens in a file only the user can read, in folders only the user can open", () => {
    const credentials = store();
    credentials.write({ resource: URL_A, tokens });
    const file = credentials.fileFor(URL_A);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    expect(statSync(credentials.dir).mode & 0o777).toBe(0o700);
    expect(credentials.read(URL_A).tokens).toEqual(tokens);
  });

  it("narrows a folder made earlier with a wider mode", () => {
    const credentials = store();
    mkdirSync(join(credentials.dir, "credentials"), { recursive: true });
    chmodSync(credentials.dir, 0o755);
    chmodSync(join(credentials.dir, "credentials"), 0o777);
    credentials.write({ resource: URL_A, tokens });
    expect(statSync(credentials.dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(credentials.dir, "credentials")).mode & 0o777).toBe(0o700);
  });

  it("is keyed by the server's URL (its fragment aside): another server's file is another file", () => {
    const credentials = store();
    credentials.write({ resource: serverKey(`${URL_A}#x`), tokens });
    expect(credentials.read(URL_A).tokens).toEqual(tokens);
    expect(credentials.read("https://mcp.example.com/other").tokens).toBeUndefined();
    expect(credentials.fileFor(URL_A)).not.toBe(credentials.fileFor("https://mcp.example.com/other"));
  });

  it("replaces the file whole, leaving no temporary file, and reads a broken or foreign file as nothing kept", () => {
    const credentials = store();
    credentials.write({ resource: URL_A, tokens });
    credentials.update(URL_A, (kept) => ({ ...kept, expiresAt: 5 }));
    expect(readdirSync(dirname(credentials.fileFor(URL_A)))).toHaveLength(1);
    expect(credentials.read(URL_A)).toEqual({ resource: URL_A, tokens, expiresAt: 5 });
    writeFileSync(credentials.fileFor(URL_A), "{not json");
    expect(credentials.read(URL_A)).toEqual({ resource: URL_A });
    writeFileSync(credentials.fileFor(URL_A), JSON.stringify({ resource: "https://elsewhere/mcp", tokens }));
    expect(credentials.read(URL_A)).toEqual({ resource: URL_A });
  });

  it("forgets a server, saying whether anything was kept", () => {
    const credentials = store();
    credentials.write({ resource: URL_A, tokens });
    expect(readFileSync(credentials.fileFor(URL_A), "utf8")).toContain("at-secret");
    expect(credentials.forget(URL_A)).toBe(true);
    expect(credentials.forget(URL_A)).toBe(false);
    expect(credentials.read(URL_A).tokens).toBeUndefined();
  });
});
