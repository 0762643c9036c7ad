import type { Tool } from "../wire/types.js";

// Ranking tools for a query: tokens from names, titles, descriptions and argument names, scored by BM25 (one bag of
// words per tool) or by BM25 with field weights (a word in the name counts more than one in the description).

/** How search ranks: `"bm25"` one bag of words per tool; `"fields"` BM25 with each field weighted. */
export type ToolRanking = "bm25" | "fields";

// Words too common in requests and descriptions to tell tools apart.
const STOP = new Set(
  "a an and are as at be by can do for from get has have how i in is it its me my of on or our please show that the their them this to was what which who will with you your"
    .split(" ")
    .filter((word) => word !== "get"),
);

// Light stemming: plurals, -ing and -ed, a final e, so "merged", "merges" and "merge" meet.
function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith("ing")) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith("ed")) w = w.slice(0, -2);
  if (w.length > 3 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}

/** The words of a text: camelCase, snake_case, kebab-case and paths split, lower-cased, stemmed, stop words out. */
export function tokenize(text: string): string[] {
  const spaced = text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ");
  const words: string[] = [];
  for (const word of spaced.split(" ")) {
    if (word === "" || STOP.has(word)) continue;
    words.push(stem(word));
  }
  return words;
}

/** One tool's words by field, made once per tool as listed. */
interface Doc {
  readonly name: string[];
  readonly title: string[];
  readonly description: string[];
  readonly args: string[];
}

const WEIGHTS = {
  bm25: { name: 1, title: 1, description: 1, args: 1 },
  fields: { name: 6, title: 3, description: 1, args: 0.5 },
};
// Where fields are weighted, only a description's opening words count: what follows is mostly detail and boilerplate.
const OPENING = { bm25: Number.POSITIVE_INFINITY, fields: 30 };
const K1 = 1.2;
const B = 0.75;

function docOf(tool: Tool, opening: number): Doc {
  const properties = (tool.inputSchema as { properties?: unknown } | undefined)?.properties;
  const args = typeof properties === "object" && properties !== null ? Object.keys(properties).join(" ") : "";
  return {
    name: tokenize(tool.name),
    title: tokenize(tool.title ?? ""),
    description: tokenize(tool.description ?? "").slice(0, opening),
    args: tokenize(args),
  };
}

/** Weighted term frequencies of a doc, and its weighted length. */
function frequencies(doc: Doc, weights: Record<keyof Doc, number>): { tf: Map<string, number>; length: number } {
  const tf = new Map<string, number>();
  let length = 0;
  for (const field of ["name", "title", "description", "args"] as const) {
    const weight = weights[field];
    for (const word of doc[field]) tf.set(word, (tf.get(word) ?? 0) + weight);
    length += doc[field].length * weight;
  }
  return { tf, length };
}

/**
 * Ranks tools: each tool's words kept by name (redone when its text changes), and per search the statistics of
 * exactly the tools given, so a tool the caller cannot see weighs nothing in another's score.
 */
export class ToolRanker {
  readonly #docs = new Map<string, { key: string; tf: { tf: Map<string, number>; length: number } }>();
  readonly #weights: Record<keyof Doc, number>;
  readonly #opening: number;

  constructor(ranking: ToolRanking) {
    this.#weights = WEIGHTS[ranking];
    this.#opening = OPENING[ranking];
  }

  #frequencies(tool: Tool): { tf: Map<string, number>; length: number } {
    const key = `${tool.title ?? ""}\u0000${tool.description ?? ""}\u0000${Object.keys((tool.inputSchema as { properties?: object }).properties ?? {}).join(",")}`;
    const known = this.#docs.get(tool.name);
    if (known !== undefined && known.key === key) return known.tf;
    const tf = frequencies(docOf(tool, this.#opening), this.#weights);
    this.#docs.set(tool.name, { key, tf });
    return tf;
  }

  /** The `limit` best tools for `terms` (tokens of the query), best first; tools scoring nothing are left out. */
  rank(tools: readonly Tool[], terms: readonly string[], limit: number): Tool[] {
    if (tools.length > 0 && this.#docs.size > 4 * tools.length + 1024) this.#docs.clear();
    const unique = [...new Set(terms)];
    const docs = tools.map((tool) => this.#frequencies(tool));
    let total = 0;
    const df = new Map<string, number>(unique.map((term) => [term, 0]));
    for (const doc of docs) {
      total += doc.length;
      for (const term of unique) if (doc.tf.has(term)) df.set(term, (df.get(term) ?? 0) + 1);
    }
    const average = total / Math.max(docs.length, 1) || 1;
    const idf = unique.map((term) => {
      const n = df.get(term) ?? 0;
      return Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
    });
    const scored: { tool: Tool; score: number; index: number }[] = [];
    docs.forEach((doc, index) => {
      let score = 0;
      unique.forEach((term, i) => {
        const f = doc.tf.get(term);
        if (f === undefined) return;
        score += (idf[i] as number) * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.length) / average)));
      });
      if (score > 0) scored.push({ tool: tools[index] as Tool, score, index });
    });
    // Ties keep the catalogue's order, so a ranking is the same on every call.
    scored.sort((x, y) => y.score - x.score || x.index - y.index);
    return scored.slice(0, limit).map((entry) => entry.tool);
  }
}
