import { usage } from "../exit-codes.js";
import { CredentialStore } from "../sign-in/credentials.js";
import { parseTarget } from "../target.js";
import { type CommandRegistration, err } from "./context.js";

/** `toolsmith logout <url>`: forget the tokens and client registration kept for a server. */
export const logoutCommand: CommandRegistration = (program) => {
  program
    .command("logout")
    .description("forget the sign-in (tokens and client registration) kept for an HTTP server")
    .argument("<url>", "the server's http(s) URL, as given to list or call")
    .action((url: string) => {
      const target = parseTarget([url]);
      if (target.kind !== "http") throw usage(`logout takes the http(s) URL of a server; got "${url}"`);
      const forgotten = new CredentialStore().forget(target.url);
      err(forgotten ? `signed out of ${target.url.href}\n` : `nothing was kept for ${target.url.href}\n`);
    });
};
