// bench/registration.mjs's Toolsmith child: `createServer` + `server.tool` with shapes (the README's form), then
// tools/list through `server.connect({ send })` and `connection.receive(line)`, the path every transport takes.
import { measure } from "./registration-harness.mjs";

await measure({
  load: () => import("@toolsmith/core"),
  register({ createServer }, specs) {
    const server = createServer({ name: "bench-registration", version: "1.0.0" });
    for (const { name, description, shape } of specs) {
      server.tool({ name, description, input: shape, handler: () => name });
    }
    return server;
  },
  async open(_, server) {
    // One request at a time: the next line sent is its reply.
    let pending;
    const connection = server.connect({
      send: (line) => {
        const resolve = pending;
        pending = undefined;
        resolve?.(line);
      },
    });
    return {
      request: (line) =>
        new Promise((resolve) => {
          pending = resolve;
          connection.receive(line);
        }),
      notify: (line) => connection.receive(line),
    };
  },
});
