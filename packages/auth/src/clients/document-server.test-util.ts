import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** A plain http server on 127.0.0.1 that plays a client's metadata document host, counting what reaches it. */
export async function documentServer(handle: (request: IncomingMessage, response: ServerResponse) => void) {
  const sockets = new Set<Socket>();
  const requests: IncomingMessage[] = [];
  let connections = 0;
  const server = createServer((request, response) => {
    requests.push(request);
    handle(request, response);
  });
  server.on("connection", (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    get connections() {
      return connections;
    },
    sockets,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, "close");
    },
  };
}

/** A client metadata document for `clientId`, with `extra` fields over the usual ones. */
export function documentFor(clientId: string, extra: Record<string, unknown> = {}) {
  return {
    client_id: clientId,
    client_name: "Example MCP Client",
    redirect_uris: ["http://127.0.0.1:3000/callback", "http://localhost:3000/callback"],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...extra,
  };
}
