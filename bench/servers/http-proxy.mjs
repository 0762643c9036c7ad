import http from "node:http";
import { benchPort } from "./http-toolsmith-parts.mjs";

// The floor for "one extra hop": a bare node:http reverse proxy in front of the remote (`--remote URL`), passing each
// request's method, path, headers and body through on a kept-alive connection and the answer back as it comes,
// understanding none of it. What it adds to a call is what the hop itself costs on this machine.
const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const remote = new URL(arg("--remote"));
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const HOP_BY_HOP = new Set(["connection", "keep-alive", "host", "transfer-encoding"]);

const server = http.createServer((request, response) => {
  const headers = {};
  for (const [name, value] of Object.entries(request.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
  const onward = http.request(
    { host: remote.hostname, port: remote.port, path: request.url, method: request.method, headers, agent },
    (answer) => {
      const back = {};
      for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name)) back[name] = value;
      response.writeHead(answer.statusCode ?? 502, back);
      answer.pipe(response);
    },
  );
  onward.on("error", () => {
    if (!response.headersSent) response.writeHead(502);
    response.end();
  });
  request.pipe(onward);
});
server.keepAliveTimeout = 60_000;
server.listen(benchPort(), "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}/mcp\n`);
});
