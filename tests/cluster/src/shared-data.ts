import type { Client, RequestOptions } from "@modelcontextprotocol/client";

/**
 * What a cluster test needs to know of one example's own data: how to write one item through the official client,
 * and how to read every item back. A write resolves with its item's token only when the server acknowledged it (a
 * tool error or a rejected call throws); tokens of acknowledged writes are never given twice, so a lost update or an
 * id handed out by two processes shows as a repeated token.
 */
export interface SharedData {
  /** The example's folder under `examples/`. */
  readonly example: string;
  /** Write item `n` (0, 1, 2, … across the test); resolves with its token once acknowledged. */
  write(client: Client, n: number, options: RequestOptions): Promise<string>;
  /** The tokens of every item the process that answers holds. */
  read(client: Client): Promise<string[]>;
  /** Writers running side by side in the kill test (default 6); fewer for a server with a per-caller rate limit. */
  readonly writers?: number;
  /** Writes acknowledged before the kill, and again after it (default 12). */
  readonly writesAround?: number;
}

type Result = Awaited<ReturnType<Client["callTool"]>>;

/** The result's structuredContent, or a thrown Error with its text when the tool failed. */
function structured<T>(result: Result, what: string): T {
  if (result.isError) {
    const [first] = (result.content ?? []) as { text?: string }[];
    throw new Error(`${what} failed: ${first?.text ?? "no text"}`);
  }
  return result.structuredContent as T;
}

/** The text of the one content block a resource read gives. */
async function resourceText(client: Client, uri: string): Promise<string> {
  const { contents } = await client.readResource({ uri });
  const [first] = contents as { text?: string }[];
  return first?.text ?? "";
}

/** The ids of `id: title` lines (notes://all in notes, quickstart and workbench). */
function idsOfLines(text: string): string[] {
  return text === "" ? [] : text.split("\n").map((line) => line.slice(0, line.indexOf(":")));
}

const notesAll = async (client: Client) => idsOfLines(await resourceText(client, "notes://all"));

export const SHARED_DATA: readonly SharedData[] = [
  {
    example: "notes",
    write: async (client, n, options) =>
      structured<{ id: string }>(
        await client.callTool(
          { name: "add", arguments: { title: `note ${n}`, body: `body ${n}`, tags: ["cluster"] } },
          options,
        ),
        "add",
      ).id,
    read: notesAll,
  },
  {
    example: "quickstart",
    write: async (client, n, options) =>
      structured<{ id: string }>(
        await client.callTool({ name: "add_note", arguments: { title: `note ${n}`, body: `body ${n}` } }, options),
        "add_note",
      ).id,
    read: notesAll,
  },
  {
    example: "issue-tracker",
    write: async (client, n, options) =>
      structured<{ id: string; created: boolean }>(
        await client.callTool(
          { name: "create_issue", arguments: { title: `issue ${n}`, labels: ["cluster"] } },
          options,
        ),
        "create_issue",
      ).id,
    read: async (client) =>
      structured<{ issues: { id: string }[] }>(
        await client.callTool({ name: "list_issues", arguments: { state: "all" } }),
        "list_issues",
      ).issues.map((issue) => issue.id),
  },
  {
    example: "workbench",
    write: async (client, n, options) =>
      structured<{ id: string }>(
        await client.callTool({ name: "notes.add", arguments: { title: `note ${n}`, body: `body ${n}` } }, options),
        "notes.add",
      ).id,
    read: notesAll,
    // Its rate limit (20 calls a caller, 5 a second more, per process) would refuse a long run of writes.
    writers: 2,
    writesAround: 4,
  },
  {
    example: "poll",
    // A vote's token: its option and that option's count right after it, which two votes can only share when one
    // overwrote the other.
    write: async (client, n, options) => {
      const option = n % 2 === 0 ? "stdio" : "HTTP";
      const poll = structured<{ options: { label: string; votes: number }[] }>(
        await client.callTool({ name: "vote", arguments: { option } }, options),
        "vote",
      );
      return `${option}#${poll.options.find((candidate) => candidate.label === option)?.votes}`;
    },
    read: async (client) =>
      structured<{ options: { label: string; votes: number }[] }>(
        await client.callTool({ name: "show_poll", arguments: {} }),
        "show_poll",
      ).options.flatMap(({ label, votes }) => Array.from({ length: votes }, (_, i) => `${label}#${i + 1}`)),
  },
  {
    example: "travel-desk",
    // Booking asks the user (the peer accepts): in 2026-07-28 an input_required round, answered to any process.
    write: async (client, n, options) =>
      structured<{ bookingId: string }>(
        await client.callTool(
          {
            name: "book_flight",
            arguments: { offerId: "NW901-LHRJFK-2026-09-14", passenger: `Passenger ${n}` },
          },
          options,
        ),
        "book_flight",
      ).bookingId,
    read: async (client) =>
      structured<{ bookings: { id: string }[] }>(
        await client.callTool({ name: "list_bookings", arguments: {} }),
        "list_bookings",
      ).bookings.map((booking) => booking.id),
  },
];
