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

export const SHARED_DATA: readonly SharedData[] = [
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
