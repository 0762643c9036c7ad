#!/usr/bin/env node
import { main } from "./main.js";

const code = await main(process.argv.slice(2));
// Let what we wrote reach a pipe, then leave, whatever the server or a watcher still holds open.
process.stdout.write("", () => process.exit(code));
