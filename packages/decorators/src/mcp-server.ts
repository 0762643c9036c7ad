import { createServer, DefinitionError, type Server, type ServerOptions } from "@toolsmith/core";
import { checkNamedMethods, collectRegistrations, register } from "./definitions.js";
import { nameOf, type Registration } from "./registry.js";
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
 * ```ts source="examples/decorators.ts#McpServer"
 * class Notes extends McpServer {
 *   name = "notes";
 *   version = "1.0.0";
 *   @tool({ description: "Count notes" }) count() {
 *     return 0;
 *   }
 * }
 * ```
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
    checkNamedMethods(registrations, self, ctor.name);
    const methodUse = methodMiddleware(ctor, McpServer, registrations);
    for (const registration of registrations) {
      register(server, registration, invoke, methodUse.get(registration.key));
    }
    installMiddleware(server, ctor, McpServer);
    warnNoMetadata(server, ctor, registrations);
    this.#server = server;
    return server;
  }
}

const WARNED = new WeakSet<object>();

// Once per class: a legacy tool with a parameter but neither input nor design:paramtypes has no input schema, which
// a schemaClass parameter was meant to supply. Said after this tick, once a transport has installed its logger.
function warnNoMetadata(server: Server, ctor: object, registrations: readonly Registration[]): void {
  if (WARNED.has(ctor)) return;
  const tools = registrations.filter((registration) => registration.kind === "tool" && registration.noMetadata);
  if (tools.length === 0) return;
  const names = tools.map((registration) => `"${nameOf(registration)}"`).join(", ");
  const which = tools.length === 1 ? `tool ${names} has` : `tools ${names} have`;
  const message = `${(ctor as { name?: string }).name}: ${which} no input schema. A legacy-decorated tool without input: takes it from a schemaClass parameter type, read from decorator metadata (design:paramtypes), and none was emitted here (esbuild, as under toolsmith dev, emits none). Give the tool input: (input: {} for none; or name an unused first parameter _args), or run your tsc build.`;
  void Promise.resolve().then(() => {
    // A mounted module's server has no logger of its own: its log reaches the server it is mounted in.
    if (!WARNED.has(ctor) && server.log({ level: "warning", message })) WARNED.add(ctor);
  });
}
