import { DefinitionError } from "../wire/errors.js";
import { isPlainObject } from "../wire/json-rpc.js";
import type { CallToolResult, Tool } from "../wire/types.js";
import { ToolRanker, type ToolRanking, tokenize } from "./tool-rank.js";

// The search surface over a large catalogue: the client lists two tools (and any pinned ones); one searches what
// this caller may see, the other calls a tool by name as `tools/call` would.

/** `createServer({ toolSearch })`: list a search tool and a call tool instead of every tool. */
export interface ToolSearchOptions {
  /** `"bm25"` (default): one bag of words per tool; `"fields"`: BM25 with the name, then title, weighted higher. */
  readonly ranking?: ToolRanking;
  /** Tools listed as they are beside the two, when the caller may see them (default none). */
  readonly pinned?: readonly string[];
  /** Results of one search when the query asks for no number (default 5). */
  readonly defaultResults?: number;
  /** The most results one search may ask for (default 20). */
  readonly maxResults?: number;
  /** The longest query, in characters (default 500). */
  readonly maxQueryChars?: number;
  /** The most words a query may have once tokenised (default 32). */
  readonly maxQueryTerms?: number;
  /** A found tool's description is cut to this many characters (default 1,000). */
  readonly descriptionChars?: number;
  /** The two tools' names (default `search_tools` and `call_tool`). */
  readonly names?: { readonly search?: string; readonly call?: string };
}

/** The options with their defaults, checked. */
export interface ToolSearchSettings {
  readonly ranking: ToolRanking;
  readonly pinned: ReadonlySet<string>;
  readonly defaultResults: number;
  readonly maxResults: number;
  readonly maxQueryChars: number;
  readonly maxQueryTerms: number;
  readonly descriptionChars: number;
  readonly search: string;
  readonly call: string;
}

function positive(value: number | undefined, fallback: number, what: string): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < 1)
    throw new DefinitionError(`toolSearch.${what} must be a positive integer, not ${chosen}`);
  return chosen;
}

/** Check `toolSearch` once, at `createServer`. */
export function toolSearchSettings(options: ToolSearchOptions | true): ToolSearchSettings {
  const given = options === true ? {} : options;
  const ranking = given.ranking ?? "bm25";
  if (ranking !== "bm25" && ranking !== "fields")
    throw new DefinitionError(`toolSearch.ranking is "bm25" or "fields", not ${JSON.stringify(ranking)}`);
  const search = given.names?.search ?? "search_tools";
  const call = given.names?.call ?? "call_tool";
  if (search === call)
    throw new DefinitionError(`toolSearch.names: the search and call tools need two names, not "${search}" twice`);
  const maxResults = positive(given.maxResults, 20, "maxResults");
  return {
    ranking,
    pinned: new Set(given.pinned ?? []),
    defaultResults: Math.min(positive(given.defaultResults, 5, "defaultResults"), maxResults),
    maxResults,
    maxQueryChars: positive(given.maxQueryChars, 500, "maxQueryChars"),
    maxQueryTerms: positive(given.maxQueryTerms, 32, "maxQueryTerms"),
    descriptionChars: positive(given.descriptionChars, 1000, "descriptionChars"),
    search,
    call,
  };
}

/** A server's search surface: its settings and its ranker (which keeps each tool's words). */
export interface ToolSearch {
  readonly settings: ToolSearchSettings;
  readonly ranker: ToolRanker;
}

/** The search surface `createServer({ toolSearch })` asks for; undefined when it asks for none. */
export function toolSearchOf(options: ToolSearchOptions | boolean | undefined): ToolSearch | undefined {
  if (options === undefined || options === false) return undefined;
  const settings = toolSearchSettings(options);
  return { settings, ranker: new ToolRanker(settings.ranking) };
}

/** The two tools the client lists, then the pinned tools this caller may see. */
export function surfaceTools(settings: ToolSearchSettings, catalogue: readonly Tool[]): Tool[] {
  const search: Tool = {
    name: settings.search,
    description: `Search this server's tools by what you want to do (a few words, as you would ask). Answers the best matches, each with its name, description and input schema; call one with ${settings.call}.`,
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "What you want to do", maxLength: settings.maxQueryChars },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: settings.maxResults,
          description: `How many tools (default ${settings.defaultResults})`,
        },
      },
      required: ["query"],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
  const call: Tool = {
    name: settings.call,
    description: `Call a tool that ${settings.search} found, by its name, with arguments that fit its input schema.`,
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", description: "The tool's name" },
        arguments: { type: "object", description: "The tool's arguments" },
      },
      required: ["name"],
    },
  };
  // 2025-11-25 lists how a tool runs as a task: the call tool may, when one this caller may call does, so a client
  // that reads the list before asking for a task (the official ext-tasks client) asks for one through it.
  const tasks = catalogue.some((tool) => taskSupportOf(tool) !== undefined);
  return [
    search,
    tasks ? ({ ...call, execution: { taskSupport: "optional" } } as Tool) : call,
    ...catalogue.filter((tool) => settings.pinned.has(tool.name)),
  ];
}

/** A listed tool's `execution.taskSupport` when it may run as a task ("optional" or "required"; 2025-11-25 lists it). */
function taskSupportOf(tool: Tool): string | undefined {
  const support = (tool as { execution?: { taskSupport?: unknown } }).execution?.taskSupport;
  return support === "optional" || support === "required" ? support : undefined;
}

// A found tool's `execution` as listed (2025-11-25), so the model knows to ask for a task.
function executionOf(tool: Tool): { execution?: unknown } {
  const { execution } = tool as { execution?: unknown };
  return execution === undefined ? {} : { execution };
}

function refused(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** What the search tool answers: the best tools of `catalogue` (what this caller may see) for its arguments. */
export function searchTools(
  settings: ToolSearchSettings,
  ranker: ToolRanker,
  catalogue: readonly Tool[],
  args: unknown,
): CallToolResult {
  const given = isPlainObject(args) ? args : {};
  const { query, limit } = given;
  if (typeof query !== "string" || query.trim() === "") return refused("query: give what you want to do, as text");
  // Characters as code points (an emoji is one), counted only in a query that could be short enough.
  const chars = query.length > 2 * settings.maxQueryChars ? query.length : [...query].length;
  if (chars > settings.maxQueryChars)
    return refused(`query: at most ${settings.maxQueryChars} characters, not ${chars}; say it in fewer words`);
  if (
    limit !== undefined &&
    (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > settings.maxResults)
  )
    return refused(`limit: a whole number from 1 to ${settings.maxResults}`);
  const terms = tokenize(query);
  if (terms.length > settings.maxQueryTerms)
    return refused(`query: at most ${settings.maxQueryTerms} words, not ${terms.length}; say it in fewer words`);
  const found = ranker.rank(catalogue, terms, (limit as number | undefined) ?? settings.defaultResults);
  const tools = found.map((tool) => ({
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: cut(tool.description ?? "", settings.descriptionChars),
    inputSchema: tool.inputSchema,
    ...executionOf(tool),
  }));
  const text = tools.length === 0 ? `No tool matches "${query}": try other words.` : JSON.stringify({ tools });
  return { content: [{ type: "text", text }] };
}

function cut(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars - 1)}…`;
}

/**
 * A call of the call tool as the `tools/call` of the tool it names, so validation, guards, scopes and middleware see
 * that tool; undefined when `params` is not such a call. Arguments that are not an object are left for the tool's
 * own check to refuse.
 */
export function unwrapCall(
  settings: ToolSearchSettings,
  params: Record<string, unknown>,
): Record<string, unknown> | undefined {
  if (params.name !== settings.call) return undefined;
  const given = isPlainObject(params.arguments) ? params.arguments : {};
  const { name, arguments: inner } = given;
  return { ...params, name: typeof name === "string" ? name : "", arguments: inner ?? {} };
}
