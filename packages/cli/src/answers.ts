import { createInterface } from "node:readline/promises";
import { CliError, usage } from "./exit-codes.js";

/** One entry of an `inputRequests` map: what the server asks the client. */
export interface InputRequest {
  method: string;
  params?: Record<string, unknown>;
}

/** Answers the questions a tool asks (form elicitations): from `--answer`, or from the person at the terminal. */
export type Answerer = (request: InputRequest, signal: AbortSignal) => Promise<Record<string, unknown>>;

interface Property {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
}

/**
 * An answerer: each `--answer` JSON is the content of an accepted answer, taken in the order the questions come;
 * once they are used up, a terminal asks the person, and anything else fails clearly.
 */
export function answerer(given: string[], interactive: boolean): Answerer {
  const queue = given.map((text) => {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      throw usage(`--answer is JSON such as '{"confirm":true}'; got ${text} (${(error as Error).message})`);
    }
  });
  return async (request, signal) => {
    const params = request.params ?? {};
    const message = typeof params.message === "string" ? params.message : "(no message)";
    if (request.method !== "elicitation/create" || (params.mode !== undefined && params.mode !== "form")) {
      throw new CliError(`the tool asked for ${request.method} (${message}), which toolsmith call cannot answer`);
    }
    const next = queue.shift();
    if (next !== undefined) return { action: "accept", content: next };
    if (!interactive) {
      throw new CliError(
        `the tool asks "${message}" and nobody is at a terminal to answer: pass the answer with --answer '<json>'`,
      );
    }
    return { action: "accept", content: await ask(message, params.requestedSchema, signal) };
  };
}

/** Ask the person each field of the form on the terminal. */
async function ask(message: string, schema: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
  const properties = ((schema as { properties?: Record<string, Property> } | undefined)?.properties ?? {}) as Record<
    string,
    Property
  >;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  // Ctrl-C at a prompt cancels the call like anywhere else.
  rl.on("SIGINT", () => process.emit("SIGINT"));
  const content: Record<string, unknown> = {};
  try {
    process.stderr.write(`\n${message}\n`);
    for (const [name, property] of Object.entries(properties)) {
      const hint = property.type === "boolean" ? " [y/n]" : property.enum ? ` (${property.enum.join("/")})` : "";
      const label = `${property.title ?? name}${property.description ? ` – ${property.description}` : ""}${hint}: `;
      const text = (await rl.question(`  ${label}`, { signal })).trim();
      if (text === "") continue;
      if (property.type === "boolean") content[name] = /^(y|yes|true)$/i.test(text);
      else if (property.type === "number" || property.type === "integer") content[name] = Number(text);
      else content[name] = text;
    }
  } finally {
    rl.close();
  }
  return content;
}
