import { listen } from "@toolsmith/transport-http";
import { createNotesServer } from "./notes.js";
import { signIn } from "./sign-in.js";

// Streamable HTTP at http://127.0.0.1:$PORT/mcp (default 3000). ISSUER: the identity provider that issues tokens;
// --dev without one starts a local OpenID provider (any name and password signs in). RESOURCE: the endpoint's public URL.
const development = process.argv.includes("--dev");
const auth = await signIn({ issuer: process.env.ISSUER, resource: process.env.RESOURCE, development });
process.stderr.write(`sign-in at ${auth.issuer}${development ? " (development: any name and password)" : ""}\n`);
const http = await listen(createNotesServer(), {
  authenticate: auth.authenticate,
  resourceMetadata: auth.resourceMetadata,
});
auth.serving(http.url);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void Promise.all([http.close(), auth.close()]).then(() => process.exit(0));
  });
}
