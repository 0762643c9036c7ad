// The benches' HTTP load generator: a lean keep-alive HTTP/1.1 client on node:net, and the reading of a reply.
import net from "node:net";

/**
 * A keep-alive HTTP/1.1 connection on node:net, one request at a time: the request written in one piece, the
 * reply read by Content-Length or chunked transfer coding. Enough HTTP for these servers, and cheaper per call
 * than node:http, so that on two cores the load generator costs well under what the floor does.
 */
export function rawConnection(url) {
  const socket = net.connect(Number(url.port), url.hostname);
  socket.setNoDelay(true);
  socket.setEncoding("latin1");
  const start = `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  let buffer = "";
  let pending;
  const fail = (error) => {
    const callback = pending;
    pending = undefined;
    callback?.(error);
  };
  socket.on("error", fail);
  socket.on("close", () => fail(new Error("connection closed")));
  socket.on("data", (chunk) => {
    buffer += chunk;
    if (pending === undefined) return;
    const end = buffer.indexOf("\r\n\r\n");
    if (end === -1) return;
    const head = buffer.slice(0, end).split("\r\n");
    const statusCode = Number(head[0].slice(9, 12));
    const headers = {};
    for (let i = 1; i < head.length; i++) {
      const colon = head[i].indexOf(":");
      headers[head[i].slice(0, colon).toLowerCase()] = head[i].slice(colon + 1).trim();
    }
    let text;
    let rest;
    if (headers["transfer-encoding"] === "chunked") {
      text = "";
      let at = end + 4;
      for (;;) {
        const line = buffer.indexOf("\r\n", at);
        if (line === -1) return;
        const size = Number.parseInt(buffer.slice(at, line), 16);
        if (buffer.length < line + 2 + size + 2) return;
        text += buffer.slice(line + 2, line + 2 + size);
        at = line + 2 + size + 2;
        if (size === 0) break;
      }
      rest = at;
    } else {
      const length = Number(headers["content-length"] ?? 0);
      if (buffer.length < end + 4 + length) return;
      text = buffer.slice(end + 4, end + 4 + length);
      rest = end + 4 + length;
    }
    buffer = buffer.slice(rest);
    const callback = pending;
    pending = undefined;
    callback(undefined, { statusCode, headers }, Buffer.from(text, "latin1").toString("utf8"));
  });
  return {
    socket,
    send(lane, body, callback) {
      pending = callback;
      lane.head ??=
        start +
        Object.entries(lane.headers)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join("");
      socket.write(`${lane.head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    },
  };
}

/** The one JSON-RPC message of a reply: a JSON body, or the data of an SSE event. */
export function messageOf(text) {
  if (text.startsWith("{")) return JSON.parse(text);
  const line = text.split("\n").find((part) => part.startsWith("data: {"));
  return line === undefined ? undefined : JSON.parse(line.slice(6));
}
