import type { Engine } from "@toolsmith/core/engine";
import { createTestClient, type TestClient } from "@toolsmith/core/testing";
import { createRedisEngine } from "@toolsmith/redis";
import { type RedisServer, startRedis } from "@toolsmith/redis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TravelDesk } from "./travel-desk.js";

// Two desks (as two processes would hold), each with its own Redis engine on one Redis of the test's own: the
// bookings are in the engine's store, so a booking made on one is the other's too.
let redis: RedisServer;
const engines: Engine[] = [];

beforeAll(async () => {
  redis = await startRedis({ appendonly: false });
});
afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.close()));
  await redis?.stop();
});

function desk(): Promise<TestClient> {
  const engine = createRedisEngine({ url: redis.url });
  engines.push(engine);
  return createTestClient(new TravelDesk({ quoteLatencyMs: 0, server: { engine } }), {
    protocolVersion: "2025-11-25",
    elicit: () => ({ action: "accept", content: { seat: "window" } }),
  });
}

describe("bookings in the store of a Redis engine", () => {
  it("are made on one desk and checked in, listed and read on another, with ids no desk gives twice", async () => {
    const [one, two] = [await desk(), await desk()];
    const offer = (await one.callTool("search_flights", { from: "LHR", to: "JFK", date: "2026-09-14" }))
      .structuredContent as { offers: { id: string }[] };
    const offerId = offer.offers[0]?.id;
    const first = (await one.callTool("book_flight", { offerId, passenger: "Ada" })).structuredContent;
    const second = (await two.callTool("book_flight", { offerId, passenger: "Grace" })).structuredContent;
    expect([first, second]).toMatchObject([{ bookingId: "TD-1001" }, { bookingId: "TD-1002" }]);

    expect((await two.callTool("check_in", { bookingId: "TD-1001" })).isError).toBeFalsy();
    // Checked in on the other desk: not again here.
    expect(await one.callTool("check_in", { bookingId: "TD-1001" })).toMatchObject({
      isError: true,
      content: [{ text: "Booking TD-1001 is checked-in" }],
    });
    const listed = (await one.callTool("list_bookings")).structuredContent as { bookings: unknown[] };
    expect(listed.bookings).toMatchObject([
      { id: "TD-1001", passenger: "Ada", status: "checked-in" },
      { id: "TD-1002", passenger: "Grace", status: "confirmed" },
    ]);
    const read = await one.readResource("bookings://TD-1002");
    expect(JSON.parse(String((read.contents[0] as { text?: string }).text))).toMatchObject({
      passenger: "Grace",
      seat: "window",
    });
  });
});
