import { spawn } from "node:child_process";

/** A command that opens a URL in the desktop's browser. */
export interface Opener {
  command: string;
  args: string[];
  /** Windows' `cmd` reads its own quoting. */
  verbatim?: boolean;
}

/**
 * How to open `url` here, or undefined when nobody would see it: `--no-browser`, a Linux or BSD without a display
 * (`DISPLAY`/`WAYLAND_DISPLAY`), a Mac reached over SSH, or a URL that is not http(s) (an authorization server names
 * the URL: a `file:` or custom scheme is never handed to the desktop).
 */
export function openerFor(
  url: string,
  options: { platform?: NodeJS.Platform; env?: NodeJS.ProcessEnv; noBrowser?: boolean } = {},
): Opener | undefined {
  const { platform = process.platform, env = process.env, noBrowser = false } = options;
  if (noBrowser) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return undefined;
  const href = parsed.href;
  if (platform === "win32") return { command: "cmd", args: ["/d", "/s", "/c", `start "" "${href}"`], verbatim: true };
  if (platform === "darwin") return env.SSH_CONNECTION || env.SSH_TTY ? undefined : { command: "open", args: [href] };
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
  return { command: "xdg-open", args: [href] };
}

/** Start `opener` and leave it: a browser that fails to start leaves the printed URL to the person. */
export function openBrowser(opener: Opener): void {
  try {
    const child = spawn(opener.command, opener.args, {
      stdio: "ignore",
      detached: true,
      windowsVerbatimArguments: opener.verbatim === true,
    });
    child.on("error", () => {});
    child.unref();
  } catch {
    // The URL is on stderr already.
  }
}
