// `node --import <this>`: installs the TypeScript hooks and reports each file they load to `toolsmith dev`.
import { register } from "node:module";
import { MessageChannel } from "node:worker_threads";

const { port1, port2 } = new MessageChannel();
register("./hooks.js", import.meta.url, { data: { port: port2 }, transferList: [port2] });
port1.on("message", (file: string) => process.send?.({ toolsmithDevLoaded: file }));
port1.unref();
process.channel?.unref();
// The supervisor gone without a word (SIGKILL runs no handler of its): its IPC channel closes, so we end too, by
// the signal it would have sent, or for good if the server ignores that.
process.once("disconnect", () => {
  setTimeout(() => process.exit(1), 3000).unref();
  process.kill(process.pid, "SIGTERM");
});
