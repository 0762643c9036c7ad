import { createHash, randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { StoredOAuthClientInformation, StoredOAuthTokens } from "@modelcontextprotocol/client";

/** What `toolsmith` keeps for one server: its client registration and the tokens it was given. */
export interface ServerCredentials {
  /** The server's URL (the file is named by its hash, so it says here which server it is for). */
  resource: string;
  client?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  /** When the access token expires, in ms since the epoch (from `expires_in` when it was saved). */
  expiresAt?: number;
}

/** The folder the credentials live in: `$XDG_CONFIG_HOME/toolsmith`, else `~/.config/toolsmith`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG spec says a relative path is to be ignored.
  const base = xdg?.startsWith("/") ? xdg : join(homedir(), ".config");
  return join(base, "toolsmith");
}

/** The key a server's credentials are kept under: its URL without the fragment. */
export function serverKey(url: URL | string): string {
  const key = new URL(url);
  key.hash = "";
  return key.href;
}

/**
 * One file per server (`credentials/<hash of its URL>.json`), readable by the user alone: the folders 0700, the file
 * 0600, written to a temporary file beside it and renamed over it, so a reader never sees half a file.
 */
export class CredentialStore {
  constructor(readonly dir: string = configDir()) {}

  /** The file for `url`'s credentials. */
  fileFor(url: URL | string): string {
    const hash = createHash("sha256").update(serverKey(url)).digest("hex").slice(0, 32);
    return join(this.dir, "credentials", `${hash}.json`);
  }

  /** What is kept for `url`, or an empty record (a missing or unreadable file is nothing kept). */
  read(url: URL | string): ServerCredentials {
    const resource = serverKey(url);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.fileFor(url), "utf8"));
    } catch {
      return { resource };
    }
    if (typeof parsed !== "object" || parsed === null || (parsed as ServerCredentials).resource !== resource) {
      return { resource };
    }
    return parsed as ServerCredentials;
  }

  /** Replace what is kept for `url`. */
  write(credentials: ServerCredentials): void {
    const file = this.fileFor(credentials.resource);
    this.#privateDir(this.dir);
    this.#privateDir(join(this.dir, "credentials"));
    const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      writeFileSync(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600, flag: "wx" });
      renameSync(temporary, file);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
  }

  /** Change what is kept for `url`. */
  update(url: URL | string, change: (credentials: ServerCredentials) => ServerCredentials): void {
    this.write(change(this.read(url)));
  }

  /** Forget everything kept for `url`; whether there was anything. */
  forget(url: URL | string): boolean {
    const file = this.fileFor(url);
    try {
      statSync(file);
    } catch {
      return false;
    }
    rmSync(file, { force: true });
    return true;
  }

  #privateDir(path: string): void {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    // A folder made earlier (or by hand) with a wider mode is narrowed: the tokens are below it.
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o700);
  }
}
