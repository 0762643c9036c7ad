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

// A link's target and a bare URL are addresses, not words about the tool (GitHub's descriptions link every page).
// Cut by hand, chunk by chunk, in one pass: a pattern for them backtracks on long runs of "a-a-a…" or "](](…", and
// descriptions come from documents and remote servers.
const SCHEME = /[A-Za-z0-9+.-]/;

function withoutLinks(text: string): string {
  if (!text.includes("](") && !text.includes("://")) return text;
  return text
    .split(/(\s+)/)
    .map((chunk) => {
      let cut = chunk.indexOf("](");
      cut = cut < 0 ? chunk.length : cut + 1;
      const at = chunk.indexOf("://");
      if (at >= 0 && at < cut) {
        cut = at;
        while (cut > 0 && SCHEME.test(chunk[cut - 1] as string)) cut--;
      }
      return chunk.slice(0, cut);
    })
    .join("");
}

/**
 * The words of a text: links dropped; camelCase, snake_case, kebab-case and paths split; letters and digits of any
 * script, accents folded, lower-cased, stemmed, stop words out.
 */
export function tokenize(text: string): string[] {
  const spaced = withoutLinks(text)
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ");
  const words: string[] = [];
  for (const word of spaced.split(" ")) {
    if (word === "" || STOP.has(word)) continue;
    words.push(stem(word));
  }
  return words;
}

// Words that often mean the same in requests about software: abbreviations, and the verbs of creating, reading,
// changing and removing. A query's word also looks for the others of its group, at a lower weight.
const GROUPS = [
  "repo repository",
  "org organization organisation",
  "dir directory folder",
  "config configuration settings",
  "auth authentication",
  "doc documentation",
  "info information detail",
  "create make new add open",
  "get show view read fetch retrieve",
  "list all enumerate",
  "update edit change modify rename set",
  "delete remove erase destroy drop",
  "find search look",
  "user person account",
];

const SYNONYMS = new Map<string, string[]>();
for (const group of GROUPS) {
  const words = group.split(" ").map((word) => stem(word));
  for (const word of words) SYNONYMS.set(word, [...(SYNONYMS.get(word) ?? []), ...words.filter((w) => w !== word)]);
}

/** Each distinct query word with weight 1, then the others of its groups with `weight` (none when 0). */
function alternatives(terms: readonly string[], weight: number): (readonly [string, number])[][] {
  return [...new Set(terms)].map((term) => [
    [term, 1] as const,
    ...(weight > 0 ? (SYNONYMS.get(term) ?? []).map((other) => [other, weight] as const) : []),
  ]);
}

/** One tool's words by field, made once per tool as listed. */
interface Doc {
  readonly name: string[];
  readonly title: string[];
  readonly summary: string[];
  readonly description: string[];
  readonly args: string[];
}

/** How a ranking weighs each field, how much of a description it reads, and its synonyms' weight (0: none). */
interface Weighing {
  readonly weights: Record<keyof Doc, number>;
  readonly opening: number;
  readonly synonyms: number;
}

const WEIGHING: Record<ToolRanking, Weighing> = {
  bm25: {
    weights: { name: 1, title: 1, summary: 1, description: 1, args: 1 },
    opening: Number.POSITIVE_INFINITY,
    synonyms: 0,
  },
  // A description's first line is most often its summary; past its opening words, mostly detail and boilerplate.
  fields: {
    weights: { name: 6, title: 3, summary: 3, description: 1, args: 0.5 },
    opening: 20,
    synonyms: 0.3,
  },
};
const K1 = 1.2;
const B = 0.75;

function docOf(tool: Tool, opening: number): Doc {
  const description = tool.description ?? "";
  const cut = description.indexOf("\n");
  const [summary, rest] = cut < 0 ? [description, ""] : [description.slice(0, cut), description.slice(cut + 1)];
  const properties = (tool.inputSchema as { properties?: unknown } | undefined)?.properties;
  const args = typeof properties === "object" && properties !== null ? Object.keys(properties).join(" ") : "";
  return {
    name: tokenize(tool.name),
    title: tokenize(tool.title ?? ""),
    summary: tokenize(summary),
    description: tokenize(rest).slice(0, opening),
    args: tokenize(args),
  };
}

/** Weighted term frequencies of a doc, and its weighted length. */
function frequencies(doc: Doc, weights: Record<keyof Doc, number>): { tf: Map<string, number>; length: number } {
  const tf = new Map<string, number>();
  let length = 0;
  for (const field of ["name", "title", "summary", "description", "args"] as const) {
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
  readonly #weighing: Weighing;
  readonly #seen = new WeakMap<Tool, { tf: Map<string, number>; length: number }>();

  constructor(ranking: ToolRanking) {
    this.#weighing = WEIGHING[ranking];
  }

  #frequencies(tool: Tool): { tf: Map<string, number>; length: number } {
    // A list is shaped once and kept until the registry changes, so the same object is most often seen again.
    const seen = this.#seen.get(tool);
    if (seen !== undefined) return seen;
    const key = `${tool.title ?? ""}\u0000${tool.description ?? ""}\u0000${Object.keys((tool.inputSchema as { properties?: object }).properties ?? {}).join(",")}`;
    const known = this.#docs.get(tool.name);
    const tf =
      known !== undefined && known.key === key
        ? known.tf
        : frequencies(docOf(tool, this.#weighing.opening), this.#weighing.weights);
    this.#docs.set(tool.name, { key, tf });
    this.#seen.set(tool, tf);
    return tf;
  }

  /**
   * The `limit` best tools for `terms` (tokens of the query), best first; tools scoring nothing are left out. Each
   * query word scores by its best match in a tool: itself, else one of its synonyms at their lower weight.
   */
  rank(tools: readonly Tool[], terms: readonly string[], limit: number): Tool[] {
    if (tools.length > 0 && this.#docs.size > 4 * tools.length + 1024) this.#docs.clear();
    const groups = alternatives(terms, this.#weighing.synonyms);
    const words = [...new Set(groups.flatMap((group) => group.map(([word]) => word)))];
    const docs = tools.map((tool) => this.#frequencies(tool));
    let total = 0;
    const df = new Map<string, number>(words.map((word) => [word, 0]));
    for (const doc of docs) {
      total += doc.length;
      for (const word of words) if (doc.tf.has(word)) df.set(word, (df.get(word) ?? 0) + 1);
    }
    const average = total / Math.max(docs.length, 1) || 1;
    const idf = new Map<string, number>();
    for (const [word, n] of df) idf.set(word, Math.log(1 + (docs.length - n + 0.5) / (n + 0.5)));
    const scored: { tool: Tool; score: number; index: number }[] = [];
    docs.forEach((doc, index) => {
      const norm = K1 * (1 - B + (B * doc.length) / average);
      let score = 0;
      for (const group of groups) {
        let best = 0;
        for (const [word, weight] of group) {
          const f = doc.tf.get(word);
          if (f !== undefined)
            best = Math.max(best, weight * (idf.get(word) as number) * ((f * (K1 + 1)) / (f + norm)));
        }
        score += best;
      }
      if (score > 0) scored.push({ tool: tools[index] as Tool, score, index });
    });
    // Ties keep the catalogue's order, so a ranking is the same on every call.
    scored.sort((x, y) => y.score - x.score || x.index - y.index);
    return scored.slice(0, limit).map((entry) => entry.tool);
  }
}
