import type { RequestContext } from "@toolsmith/core";
import { McpServer, tool } from "@toolsmith/decorators";
import type { WireEntry } from "@toolsmith/transport-stdio";
import { z } from "zod";

/** How many lines the log keeps; older ones are dropped and counted. */
export const WIRE_CAP = 64;

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
    this.entries.push(entry);
  };

  @tool({
    name: "show_wire",
    title: "Show the wire",
    description:
      "Return every JSON-RPC message that has crossed this session's stdio pipe, verbatim and in order — including the request you are making right now.",
    input: z.object({}).strict(),
  })
  showWire(_args: Record<string, never>, ctx: RequestContext) {
    const header = `wire transcript — ${this.entries.length} message(s), ${this.dropped} dropped (cap ${WIRE_CAP})`;
    const lines = this.entries.map((entry) => `[${entry.phase}] ${entry.direction === "in" ? "→" : "←"} ${entry.line}`);
    return [`negotiated protocol: ${ctx.protocolVersion}`, header, ...lines].join("\n");
  }
}
