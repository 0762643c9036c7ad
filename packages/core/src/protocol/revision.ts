import { ErrorCode } from "../wire/json-rpc.js";
import type { Era } from "./era.js";
import { HANDSHAKE_VERSIONS, type ProtocolVersion, STATELESS_VERSIONS } from "./versions.js";

/**
 * Everything that differs between protocol revisions, in one table: every other module asks this one.
 * The full form of every shape is the newest revision's; older revisions drop what they do not define.
 */
export interface RevisionFeatures {
  readonly version: ProtocolVersion;
  /** handshake: `initialize` first, then requests; stateless: `_meta` on every request. */
  readonly era: Era;
  /** `title`, `outputSchema`, `structuredContent`, `resource_link` (2025-06-18+). */
  readonly titlesAndStructuredOutput: boolean;
  /** `_meta` on tools, resources, prompts, content blocks and resource contents; `annotations.lastModified` (2025-06-18+). */
  readonly itemMeta: boolean;
  /** `icons` on tools, resources, prompts and resource links, and `description`/`websiteUrl` on the server's identity (2025-11-25+). */
  readonly icons: boolean;
  /** Argument validation failures are `isError` results rather than -32602 (2025-11-25+). */
  readonly validationErrorsAsResults: boolean;
  /** `outputSchema` and `structuredContent` may be any JSON, not just objects (2026-07-28). */
  readonly anyStructuredContent: boolean;
  /** Incoming JSON-RPC batches are accepted (2025-03-26 only). */
  readonly batches: boolean;
  /** The code a missing resource is answered with. */
  readonly resourceNotFound: number;
  /** How the server asks the client something: JSON-RPC requests, or `input_required` results (2026-07-28). */
  readonly askVia: "requests" | "input-required";
  /** Elicitation modes this revision defines (none before 2025-06-18; URL mode from 2025-11-25). */
  readonly elicitation: readonly ("form" | "url")[];
  /** `tools`/`toolChoice` in sampling requests (2025-11-25+, when the client declares `sampling.tools`). */
  readonly samplingTools: boolean;
  /** `context.arguments` in `completion/complete` (2025-06-18+). */
  readonly completionContext: boolean;
  /** Where a log level comes from: `logging/setLevel` for the connection, or each request's `_meta`. */
  readonly logLevelFrom: "set-level" | "request-meta";
  /** Over HTTP, an SSE stream opens with an empty event carrying an id, so the client can resume from it (2025-11-25). */
  readonly ssePriming: boolean;
  /** Results carry `resultType`, `_meta` server info and (discover, lists, reads) caching hints. */
  readonly resultType: boolean;
  /** Methods this revision removed, answered -32601 with a message saying so. */
  readonly removedMethods: ReadonlySet<string>;
  /**
   * Tasks: none; the core protocol's (2025-11-25: `params.task`, `tasks/get|result|list|cancel`, the `tasks`
   * capability); or the tasks extension's (2026-07-28: declared per request, `tasks/get|update|cancel`).
   */
  readonly tasks: "none" | "core" | "extension";
}

const HANDSHAKE_BASE = {
  era: "handshake",
  anyStructuredContent: false,
  resourceNotFound: ErrorCode.ResourceNotFound,
  askVia: "requests",
  logLevelFrom: "set-level",
  resultType: false,
} as const;

// Before 2025-11-25 no tasks are defined; 2025-11-25 has its own (no tasks/update, which is the extension's).
const HANDSHAKE_REMOVED = ["server/discover", "subscriptions/listen", "tasks/update"] as const;
const NO_TASKS = new Set<string>([...HANDSHAKE_REMOVED, "tasks/get", "tasks/cancel", "tasks/result", "tasks/list"]);

const REVISIONS: Record<ProtocolVersion, RevisionFeatures> = {
  "2025-03-26": {
    ...HANDSHAKE_BASE,
    version: "2025-03-26",
    removedMethods: NO_TASKS,
    tasks: "none",
    ssePriming: false,
    titlesAndStructuredOutput: false,
    itemMeta: false,
    icons: false,
    validationErrorsAsResults: false,
    batches: true,
    elicitation: [],
    samplingTools: false,
    completionContext: false,
  },
  "2025-06-18": {
    ...HANDSHAKE_BASE,
    version: "2025-06-18",
    removedMethods: NO_TASKS,
    tasks: "none",
    ssePriming: false,
    titlesAndStructuredOutput: true,
    itemMeta: true,
    icons: false,
    validationErrorsAsResults: false,
    batches: false,
    elicitation: ["form"],
    samplingTools: false,
    completionContext: true,
  },
  "2025-11-25": {
    ...HANDSHAKE_BASE,
    version: "2025-11-25",
    removedMethods: new Set<string>(HANDSHAKE_REMOVED),
    tasks: "core",
    ssePriming: true,
    titlesAndStructuredOutput: true,
    itemMeta: true,
    icons: true,
    validationErrorsAsResults: true,
    batches: false,
    elicitation: ["form", "url"],
    samplingTools: true,
    completionContext: true,
  },
  "2026-07-28": {
    version: "2026-07-28",
    era: "stateless",
    titlesAndStructuredOutput: true,
    itemMeta: true,
    icons: true,
    validationErrorsAsResults: true,
    anyStructuredContent: true,
    batches: false,
    resourceNotFound: ErrorCode.InvalidParams,
    askVia: "input-required",
    elicitation: ["form", "url"],
    samplingTools: true,
    completionContext: true,
    logLevelFrom: "request-meta",
    ssePriming: false,
    resultType: true,
    // The tasks extension has no tasks/result nor tasks/list (2025-11-25's).
    removedMethods: new Set([
      "initialize",
      "ping",
      "logging/setLevel",
      "resources/subscribe",
      "resources/unsubscribe",
      "tasks/result",
      "tasks/list",
    ]),
    tasks: "extension",
  },
};

/** What the revision `version` has. */
export function featuresOf(version: ProtocolVersion): RevisionFeatures {
  return REVISIONS[version];
}

/** The revisions that take JSON-RPC batches, as messages name them ("2025-03-26"). */
export const BATCH_REVISIONS: string = HANDSHAKE_VERSIONS.filter((version) => REVISIONS[version].batches).join(" or ");

/** The stateless revisions, as messages name them ("2026-07-28"). */
export const STATELESS_REVISIONS: string = STATELESS_VERSIONS.join(" or ");
