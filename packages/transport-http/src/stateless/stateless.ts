import { type AuthInfo, ErrorCode, LATEST_STATELESS_VERSION, McpError, type Server, type Tool } from "@toolsmith/core";
import { isPlainObject, messageIdText } from "@toolsmith/core/internal";
import type { Connection, ReceiveOptions } from "@toolsmith/core/transport";
import type { StreamLimits } from "../checks/caller-limits.js";
import { addressOf, callerKeyOf, type RemoteAddress } from "../checks/caller-limits.js";
import { paramMismatch, routingMismatch } from "../checks/routing-headers.js";
import { statelessVersionRefusal, VERSION_HEADER } from "../checks/versions.js";
import type { Incoming, Outgoing } from "../exchange/exchange.js";
import { PostReply } from "../exchange/post-reply.js";
import { refuse, statelessStatus } from "../exchange/refusals.js";

// The Mcp-Param-* check of a 2026-07-28 tools/call: core asks it only of a tool this caller may use, so a hidden
// tool's headers are never looked at (it answers as unknown, like a tool that does not exist).
function paramCheck(request: Incoming, message: Record<string, unknown>): (tool: Tool) => void {
  const args = isPlainObject(message.params) ? message.params.arguments : undefined;
  return (tool) => {
    const mismatch = paramMismatch(request, args, tool.inputSchema);
    if (mismatch) throw new McpError(ErrorCode.HeaderMismatch, `Header mismatch: ${mismatch}`);
  };
}

/** 2026-07-28 over HTTP: every POST stands alone, on a connection made for it and closed after it. */
export class StatelessRequests {
  readonly #server: Server;
  readonly #streams: StreamLimits;
  readonly #remoteAddress: RemoteAddress | undefined;
  // Listen streams open now: ended with their closing result when the handler closes.
  readonly #listening = new Set<Connection>();

  // False under `handshake: false`: server/discover then names the stateless versions alone.
  readonly #handshake: boolean;

  constructor(server: Server, streams: StreamLimits, remoteAddress: RemoteAddress | undefined, handshake = true) {
    this.#server = server;
    this.#streams = streams;
    this.#remoteAddress = remoteAddress;
    this.#handshake = handshake;
  }

  /** Serve one POST whose body (`message`, parsed) chose the stateless era. */
  serve(request: Incoming, body: string, message: unknown, auth: AuthInfo | undefined): Promise<Outgoing> | Outgoing {
    if (!isPlainObject(message) || typeof message.method !== "string") {
      return refuse(
        400,
        messageIdText(message, body),
        ErrorCode.InvalidRequest,
        "Invalid request: one JSON-RPC request or notification per POST",
      );
    }
    const wrongVersion = statelessVersionRefusal(request.header(VERSION_HEADER), message, body);
    if (wrongVersion) return wrongVersion;
    if (message.id !== undefined) {
      // initialize exists only in the handshake era, which a 2026-07-28 request did not choose.
      if (message.method === "initialize") {
        return refuse(
          404,
          messageIdText(message, body),
          ErrorCode.MethodNotFound,
          `Method not found: initialize (removed in protocol revision ${LATEST_STATELESS_VERSION})`,
        );
      }
      const mismatch = routingMismatch(request, message);
      if (mismatch)
        return refuse(400, messageIdText(message, body), ErrorCode.HeaderMismatch, `Header mismatch: ${mismatch}`);
    }
    if (message.method === "subscriptions/listen") return this.#listen(request, body, message, auth);
    // One connection for this request alone: nothing outlives it. Closing its stream cancels the request.
    const reply: PostReply = new PostReply({ status: statelessStatus, onCancel: () => connection.close() });
    const connection = this.#server.connect({
      send: (line, delivery) => void reply.deliver(line, delivery),
      handshake: this.#handshake,
    });
    // The address keys an anonymous caller's task limits, as it keys its streams.
    const options: ReceiveOptions = {
      tag: reply,
      parsed: message,
      era: "stateless",
      address: addressOf(request, this.#remoteAddress),
    };
    if (auth) options.auth = auth;
    if (message.method === "tools/call") options.checkTool = paramCheck(request, message);
    const done = connection.receive(body, options);
    if (done === undefined) {
      // Answered already: there is nothing left for the client to abort.
      reply.accept();
      connection.close();
      return reply.answered();
    }
    request.onAbort(() => connection.close());
    const finish = () => {
      reply.accept();
      connection.close();
    };
    done.then(finish, finish);
    return reply.answered();
  }

  // subscriptions/listen: a stream held open, counted against the stream limits, until it ends or its client goes.
  #listen(
    request: Incoming,
    body: string,
    message: Record<string, unknown>,
    auth: AuthInfo | undefined,
  ): Promise<Outgoing> | Outgoing {
    const caller = callerKeyOf(request, auth, this.#remoteAddress);
    const refused = this.#streams.take(caller, messageIdText(message, body));
    if (refused) return refused;
    // A listen stream's place is given back once: when it ends, or at once when its client closes it.
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      this.#streams.release(caller);
      this.#listening.delete(connection);
    };
    // Closing the stream cancels the request.
    const reply: PostReply = new PostReply({
      status: statelessStatus,
      onCancel: () => {
        release();
        connection.close();
      },
    });
    const connection = this.#server.connect({
      send: (line, delivery) => void reply.deliver(line, delivery),
      handshake: this.#handshake,
    });
    request.onAbort(() => connection.close());
    this.#listening.add(connection);
    const finish = () => {
      release();
      reply.accept();
      connection.close();
    };
    const done = connection.receive(
      body,
      auth
        ? { tag: reply, parsed: message, era: "stateless", auth }
        : { tag: reply, parsed: message, era: "stateless" },
    );
    if (done === undefined) finish();
    else done.then(finish, finish);
    return reply.answered();
  }

  /** End every listen stream with its closing result (the server shutting down). */
  close(): void {
    for (const connection of [...this.#listening]) connection.endSubscriptions();
  }
}
