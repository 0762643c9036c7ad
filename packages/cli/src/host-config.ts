import { usage } from "./exit-codes.js";

export const HOSTS = ["claude-desktop", "claude-code", "vscode", "cursor"] as const;
export type Host = (typeof HOSTS)[number];

const ALIASES: Record<string, Host> = {
  "claude-desktop": "claude-desktop",
  claude: "claude-desktop",
  desktop: "claude-desktop",
  "claude-code": "claude-code",
  code: "claude-code",
  vscode: "vscode",
  "vs-code": "vscode",
  cursor: "cursor",
};

export function parseHost(value: string): Host {
  const host = ALIASES[value.toLowerCase()];
  if (!host) throw usage(`the host is one of ${HOSTS.join(", ")}; got "${value}"`);
  return host;
}

export type Server =
  | { name: string; kind: "stdio"; command: string; args: string[]; env: Record<string, string> }
  | { name: string; kind: "http"; url: string };

export interface Snippet {
  /** Where it goes, for people (printed on stderr). */
  where: string;
  /** The snippet itself (printed on stdout). */
  text: string;
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

const DESKTOP_CONFIG =
  "add to claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\), then restart Claude Desktop";

// mcp-remote refuses plain http:// beyond localhost and 127.0.0.1 unless told the network is trusted.
function mcpRemoteArgs(url: string): string[] {
  const { protocol, hostname } = new URL(url);
  const loopback = hostname === "localhost" || hostname === "127.0.0.1";
  return ["-y", "mcp-remote", url, ...(protocol === "http:" && !loopback ? ["--allow-http"] : [])];
}

/** The snippet that registers `server` in `host`. */
export function snippetFor(host: Host, server: Server): Snippet {
  const env = server.kind === "stdio" && Object.keys(server.env).length > 0 ? { env: server.env } : {};
  const stdio = server.kind === "stdio" ? { command: server.command, args: server.args, ...env } : undefined;
  switch (host) {
    case "claude-desktop":
      if (server.kind === "http") {
        return {
          where: `${DESKTOP_CONFIG}: Claude Desktop starts local servers over stdio, so the mcp-remote bridge (run by npx) connects it to the URL; a deployed server with a public HTTPS URL can go under Settings → Connectors instead`,
          text: json({ mcpServers: { [server.name]: { command: "npx", args: mcpRemoteArgs(server.url) } } }),
        };
      }
      return {
        where: DESKTOP_CONFIG,
        text: json({ mcpServers: { [server.name]: stdio } }),
      };
    case "claude-code": {
      const envFlags =
        server.kind === "stdio" ? Object.entries(server.env).map(([k, v]) => `--env ${shellQuote(`${k}=${v}`)} `) : [];
      const text =
        server.kind === "http"
          ? `claude mcp add --transport http ${shellQuote(server.name)} ${shellQuote(server.url)}\n`
          : `claude mcp add ${envFlags.join("")}${shellQuote(server.name)} -- ${[server.command, ...server.args].map(shellQuote).join(" ")}\n`;
      return { where: "run in the project (add --scope project to share it through .mcp.json)", text };
    }
    case "vscode":
      return {
        where: "add to .vscode/mcp.json in the workspace (or run MCP: Open User Configuration)",
        text: json({
          servers: {
            [server.name]: server.kind === "http" ? { type: "http", url: server.url } : { type: "stdio", ...stdio },
          },
        }),
      };
    case "cursor":
      return {
        where: "add to .cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project)",
        text: json({ mcpServers: { [server.name]: server.kind === "http" ? { url: server.url } : stdio } }),
      };
  }
}

/** `--env KEY=VALUE` options as a record. */
export function parseEnv(pairs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw usage(`--env is KEY=VALUE; got "${pair}"`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}
