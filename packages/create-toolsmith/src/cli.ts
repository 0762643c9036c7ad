#!/usr/bin/env node
import { relative } from "node:path";
import { run } from "./run.js";

// Exit codes: 0 done, 1 refused (name, directory, checkout), 2 bad command line, 130 cancelled.
process.exitCode = await run(process.argv.slice(2), {
  cwd: process.cwd(),
  interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  relative: (path) => relative(process.cwd(), path) || ".",
});
