import { createTestClient, type TestClient } from "@toolsmith/core/testing";
import { type RedisServer, startRedis } from "@toolsmith/redis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisBookings } from "./redis-bookings.js";
import { TravelDesk } from "./travel-desk.js";

// Two desks (as two processes would hold) sharing one Redis of their own: a booking made on one is the other's too.
let redis: RedisServer;
const stores: ReturnType<typeof redisBookings>[] = [];

beforeAll(async () => {
  redis = await startRedis({ appendonly: false });
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await redis?.stop();
});

function desk(): Promise<TestClient> {
  const bookings = redisBookings(redis.url);
  stores.push(bookings);
  return createTestClient(new TravelDesk({ quoteLatencyMs: 0, bookings }), {
    protocolVersion: "2025-11-25",
    elicit: () => ({ action: "accept", content: { seat: "window" } }),
  });
}

describe("bookings in Redis", () => {
  it("are made on one desk and checked in, listed and read on another, with ids no desk gives twice", async () => {
    const [one, two] = [await desk(), await desk()];
    const offer = (await one.callTool("search_flights", { from: "LHR", to: "JFK", date: "2026-09-14" }))
      .structuredContent as { offers: { id: string }[] };
    const offerId = offer.offers[0]?.id;
    const first = (await one.callTool("book_flight", { offerId, passenger: "Ada" })).structuredContent;
    const second = (await two.callTool("book_flight", { offerId, passenger: "Grace" })).structuredContent;
    expect([first, second]).toMatchObject([{ bookingId: "TD-1001" }, { bookingId: "TD-1002" }]);

    expect((await two.callTool("check_in", { bookingId: "TD-1001" })).isError).toBeFalsy();
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
