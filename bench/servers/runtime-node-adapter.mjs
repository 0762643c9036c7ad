import { createServer } from "node:http";

// createHttpHandler behind node:http without a library: the body read whole, a web Request built from it, the
// Response written back (a JSON reply in one piece with its length, an event stream chunk by chunk).

/** Serve the web-standard `handle` on 127.0.0.1:`port`; resolves to the base URL. */
export function serveOnNode(handle, port) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", async () => {
      const headers = new Headers();
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        body: hasBody ? Buffer.concat(chunks) : undefined,
      });
      const response = await handle(request);
      const head = [...response.headers].filter(([name]) => name !== "content-length").flat();
      if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
        res.writeHead(response.status, head);
        for await (const chunk of response.body) res.write(chunk);
        res.end();
        return;
      }
      const body = Buffer.from(await response.arrayBuffer());
      res.writeHead(response.status, [...head, "content-length", String(body.length)]).end(body);
    });
  });
  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () => resolve(`http://127.0.0.1:${server.address().port}`));
  });
}
