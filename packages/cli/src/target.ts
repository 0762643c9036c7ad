import { existsSync } from "node:fs";
import { usage } from "./exit-codes.js";

/** Where a server is: a command to spawn (stdio) or a Streamable HTTP URL. */
export type Target = { kind: "stdio"; command: string; args: string[] } | { kind: "http"; url: URL };

const URL_LIKE = /^https?:\/\//i;
const PAIR = /^[A-Za-z_$][\w$.-]*=/;
const TOOL = /^[A-Za-z0-9_.-]{1,64}$/;

/** Split one string into words as a POSIX shell would for quotes and backslashes (no expansion). */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let started = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === "\\" && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      started = true;
    } else if (char === "\\" && i + 1 < line.length) {
      word += line[++i];
      started = true;
    } else if (/\s/.test(char)) {
      if (started) words.push(word);
      word = "";
      started = false;
    } else {
      word += char;
      started = true;
    }
  }
  if (quote) throw usage(`unterminated ${quote} in the server command: ${line}`);
  if (started) words.push(word);
  return words;
}

/** The server named by the words after the options: a URL, one quoted command line, or the command's own words. */
export function parseTarget(words: string[]): Target {
  if (words.length === 0) throw usage("say which server: a command (e.g. node dist/main.js) or an http(s) URL");
  const [first, ...rest] = words as [string, ...string[]];
  if (URL_LIKE.test(first)) {
    if (rest.length > 0) throw usage(`a URL takes no further words; got ${rest.join(" ")}`);
    try {
      return { kind: "http", url: new URL(first) };
    } catch {
      throw usage(`not a valid URL: ${first}`);
    }
  }
  const command = words.length === 1 && /\s/.test(first) ? splitWords(first) : words;
  if (command.length === 0 || command[0] === "") throw usage("the server command is empty");
  return { kind: "stdio", command: command[0] as string, args: command.slice(1) };
}

/**
 * `call`'s words: the server, the tool, then key=value pairs. `--` may end the server's words; without it a URL is
 * one word, and otherwise the tool is the last word that is not key=value.
 */
export function splitCall(words: string[]): { target: Target; tool: string; pairs: string[] } {
  const dashes = words.indexOf("--");
  let server: string[];
  let tail: string[];
  if (dashes >= 0) {
    server = words.slice(0, dashes);
    tail = words.slice(dashes + 1);
  } else if (words[0] !== undefined && (URL_LIKE.test(words[0]) || (words.length >= 2 && /\s/.test(words[0])))) {
    server = words.slice(0, 1);
    tail = words.slice(1);
  } else {
    let tool = words.length - 1;
    while (tool > 0 && PAIR.test(words[tool] as string)) tool--;
    server = words.slice(0, tool);
    tail = words.slice(tool);
  }
  const [tool, ...pairs] = tail;
  if (server.length === 0) throw usage("say which server before the tool: toolsmith call <command…|url> <tool>");
  // A path is the server's, not a tool: `call node dist/main.js` is missing its tool.
  if (tool === undefined || !TOOL.test(tool) || (dashes < 0 && existsSync(tool))) {
    throw usage(
      `say which tool to call after the server: toolsmith call <command…|url> <tool>${tool ? ` ("${tool}" is not a tool name)` : ""}`,
    );
  }
  const bad = pairs.find((pair) => !PAIR.test(pair));
  if (bad !== undefined) throw usage(`after the tool come key=value pairs; "${bad}" is not one`);
  return { target: parseTarget(server), tool, pairs };
}

/** A target for messages: the URL, or the command line. */
export function describeTarget(target: Target): string {
  return target.kind === "http" ? target.url.href : [target.command, ...target.args].join(" ");
}
