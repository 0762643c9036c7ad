import type { RequestContext } from "@toolsmith/core";
import { McpServer, tool } from "@toolsmith/decorators";
import type { WireEntry } from "@toolsmith/transport-stdio";
import { z } from "zod";

/** How many lines the log keeps; older ones are dropped and counted. */
export const WIRE_CAP = 64;
/** Longest line the log keeps whole; a longer one is kept as its head and a count of the rest. */
export const LINE_CAP = 2000;

/** What show_wire says when nothing is recorded: the server is not on stdio (e.g. `--http`), or has no tap. */
export const UNTAPPED =
  "(nothing recorded: show_wire sees only stdio traffic, through serveStdio's tap; this server is not serving over stdio, e.g. it runs with --http)";

// Each answer embeds the previous one escaped once more: uncut, the answers grow exponentially from call to call.
function abbreviate(line: string): string {
  if (line.length <= LINE_CAP) return line;
  const last = line.charCodeAt(LINE_CAP - 1);
  const cut = last >= 0xd800 && last <= 0xdbff ? LINE_CAP - 1 : LINE_CAP; // not between the halves of a pair
  return `${line.slice(0, cut)}… (+${line.length - cut} chars)`;
}

/**
 * The server of the seed "An MCP server is a protocol you can read": one tool, show_wire, that returns every
 * JSON-RPC line that crossed the pipe, in order, tagged with direction and phase.
 */
export class Wiretap extends McpServer {
  name = "wiretap-mcp";
  title = "Wiretap";
  version = "0.1.0";
  readonly entries: WireEntry[] = [];
  dropped = 0;

  /** Give this to serveStdio as its tap: every line in, before it is handled; every reply, before it is written. */
  readonly record = (entry: WireEntry): void => {
    if (this.entries.length === WIRE_CAP) {
      this.entries.shift();
      this.dropped++;
    }
    this.entries.push({ ...entry, line: abbreviate(entry.line) });
  };

  @tool({
    name: "show_wire",
    title: "Show the wire",
    description:
      "Return every JSON-RPC message that has crossed this session's stdio pipe, verbatim and in order — including the request you are making right now. " +
      `The last ${WIRE_CAP} are kept; a message over ${LINE_CAP} characters is cut to its first ${LINE_CAP} and a count of the rest.`,
    input: z.object({}).strict(),
  })
  showWire(_args: Record<string, never>, ctx: RequestContext) {
    const header = `wire transcript — ${this.entries.length} message(s), ${this.dropped} dropped (cap ${WIRE_CAP})`;
    const lines = this.entries.map((entry) => `[${entry.phase}] ${entry.direction === "in" ? "→" : "←"} ${entry.line}`);
    // Over stdio the request asking is always recorded first, so an empty log means no tap is attached.
    if (lines.length === 0) lines.push(UNTAPPED);
    return [`negotiated protocol: ${ctx.protocolVersion}`, header, ...lines].join("\n");
  }
}
