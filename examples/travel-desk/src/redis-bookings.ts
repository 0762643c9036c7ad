import { Redis } from "ioredis";
import { type Booking, type BookingStore, bookingId } from "./bookings.js";

/**
 * Bookings in Redis, shared by every process of the desk: a hash of JSON bookings and a counter for their ids,
 * under `<prefix>:`. A status change is last-writer-wins, which is enough for a desk whose bookings change one at a
 * time.
 * @example
 * new TravelDesk({ bookings: redisBookings(process.env.REDIS_URL ?? "redis://127.0.0.1:6379") });
 */
export function redisBookings(url: string, prefix = "travel-desk"): BookingStore & { close(): Promise<void> } {
  const redis = new Redis(url, { lazyConnect: false });
  const key = {
    bookings: `${prefix}:bookings`,
    sequence: `${prefix}:booking-sequence`,
    order: `${prefix}:booking-order`,
  };
  return {
    nextId: async () => bookingId(await redis.incr(key.sequence)),
    get: async (id) => {
      const json = await redis.hget(key.bookings, id);
      return json === null ? undefined : (JSON.parse(json) as Booking);
    },
    put: async (booking) => {
      // The id joins the order list once, when the booking is first kept.
      const added = await redis.hsetnx(key.bookings, booking.id, JSON.stringify(booking));
      if (added) await redis.rpush(key.order, booking.id);
      else await redis.hset(key.bookings, booking.id, JSON.stringify(booking));
    },
    all: async () => {
      const ids = await redis.lrange(key.order, 0, -1);
      if (ids.length === 0) return [];
      const found = await redis.hmget(key.bookings, ...ids);
      return found.flatMap((json) => (json === null ? [] : [JSON.parse(json) as Booking]));
    },
    close: async () => {
      await redis.quit();
    },
  };
}
