import { createServer, DefinitionError, type Server, type ServerOptions } from "@toolsmith/core";
import { collectRegistrations, register } from "./definitions.js";
import { installMiddleware, methodMiddleware } from "./use.js";

/** Identity and settings a server class may pass to its base instead of declaring fields. */
export type McpServerOptions = Partial<ServerOptions>;

function kebab(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase() || "mcp-server";
}

/**
 * The base of a server written as a class: decorate its methods with `@tool`, `@resource` and `@prompt`, then
 * serve an instance (`serveStdio(new Notes())`) or test it (`createTestClient(new Notes())`).
 * Identity comes from the fields `name`, `version`, `title`, `description` and `instructions`, or from the
 * options given to `super()`; `name` defaults to the class name in kebab case, `version` to "0.0.0".
 * Those five names and `toServer` are the base's own; every other method name is yours.
 * @example
 * class Notes extends McpServer {
 *   name = "notes";
 *   version = "1.0.0";
 *   @tool({ description: "Count notes" }) count() { return 0; }
 * }
 */
export abstract class McpServer {
  readonly #options: McpServerOptions;
  #server: Server | undefined;

  constructor(options: McpServerOptions = {}) {
    this.#options = options;
  }

  /** The core server behind this instance: built on first use from the class's decorated methods, then kept. */
  toServer(): Server {
    if (this.#server) return this.#server;
    const ctor = this.constructor as abstract new (...args: never[]) => McpServer;
    const options = this.#options;
    const self = this as unknown as Record<string | symbol, unknown>;
    // Identity fields are plain subclass fields (no `override` needed), so they are read and checked here.
    const field = (key: "name" | "version" | "title" | "description" | "instructions"): string | undefined => {
      const value = self[key] ?? options[key];
      if (value !== undefined && typeof value !== "string") {
        throw new DefinitionError(`${ctor.name}.${key} must be a string, not ${typeof value}`);
      }
      return value;
    };
    const server = createServer({
      ...options,
      name: field("name") ?? kebab(ctor.name),
      version: field("version") ?? "0.0.0",
      title: field("title"),
      description: field("description"),
      instructions: field("instructions"),
    });
    // Each call looks the method up on the instance: overrides and `this` work as in any method call.
    const invoke = (key: string | symbol, args: unknown[]) => {
      const method = self[key];
      if (typeof method !== "function") throw new TypeError(`${ctor.name}.${String(key)} is not a method`);
      return Reflect.apply(method, this, args);
    };
    const registrations = collectRegistrations(ctor, McpServer);
    const methodUse = methodMiddleware(ctor, McpServer, registrations);
    for (const registration of registrations) {
      register(server, registration, invoke, methodUse.get(registration.key));
    }
    installMiddleware(server, ctor, McpServer);
    this.#server = server;
    return server;
  }
}
