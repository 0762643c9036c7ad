import type { Store } from "@toolsmith/core";
import { z } from "zod";

/** A fare search_flights found: its id is what book_flight takes. */
export interface Offer {
  id: string;
  airline: string;
  flight: string;
  from: string;
  to: string;
  date: string;
  departs: string;
  price: { amount: number; currency: "EUR" };
}

export type Seat = "window" | "aisle" | "middle";
export type Meal = "standard" | "vegetarian" | "vegan" | "none";

/** A booked offer for one passenger. */
export interface Booking {
  id: string;
  offer: Offer;
  passenger: string;
  seat: Seat;
  meal: Meal;
  status: "confirmed" | "checked-in" | "cancelled";
}

const OfferSchema = z.object({
  id: z.string(),
  airline: z.string(),
  flight: z.string(),
  from: z.string(),
  to: z.string(),
  date: z.string(),
  departs: z.string(),
  price: z.object({ amount: z.number(), currency: z.literal("EUR") }),
});
/** A booking as the store gives it back: checked, so one written by an older desk that no longer fits is skipped. */
const BookingSchema = z.object({
  id: z.string(),
  offer: OfferSchema,
  passenger: z.string(),
  seat: z.enum(["window", "aisle", "middle"]),
  meal: z.enum(["standard", "vegetarian", "vegan", "none"]),
  status: z.enum(["confirmed", "checked-in", "cancelled"]),
});

// In the server's store (the engine's: every process sharing a Redis engine has the same bookings): a counter for
// their ids, and each booking under its number zero-padded, so the store's key order is the order they were made.
const SEQUENCE = "booking-sequence";
const BOOKING = "booking:";
const keyOf = (sequence: number) => `${BOOKING}${String(sequence).padStart(10, "0")}`;

/** Booking ids: TD-1001, TD-1002, … */
export function bookingId(sequence: number): string {
  return `TD-${1000 + sequence}`;
}

function sequenceOf(id: string): number | undefined {
  const digits = /^TD-(\d{4,10})$/.exec(id)?.[1];
  const sequence = digits === undefined ? 0 : Number(digits) - 1000;
  return sequence >= 1 ? sequence : undefined;
}

/** A new booking id, never given before by any process sharing the store. */
export async function nextBookingId(store: Store): Promise<string> {
  return bookingId((await store.update(SEQUENCE, (last: number | undefined) => (last ?? 0) + 1)) as number);
}

export function readBooking(store: Store, id: string): Promise<Booking | undefined> {
  const sequence = sequenceOf(id);
  return sequence === undefined ? Promise.resolve(undefined) : store.get(keyOf(sequence), BookingSchema);
}

/** Keep a new booking (its id from `nextBookingId`). */
export async function keepBooking(store: Store, booking: Booking): Promise<void> {
  const sequence = sequenceOf(booking.id);
  if (sequence === undefined) throw new RangeError(`${booking.id} is not a booking id`);
  await store.set(keyOf(sequence), booking);
}

/**
 * Change a booking atomically (two processes checking in and cancelling at once: one wins, the other sees its
 * outcome): `change` gets the booking as it is and gives it as it should be. The booking as kept, or undefined.
 */
export async function changeBooking(
  store: Store,
  id: string,
  change: (booking: Booking) => Booking,
): Promise<Booking | undefined> {
  const sequence = sequenceOf(id);
  if (sequence === undefined) return undefined;
  return store.update(keyOf(sequence), (booking) => booking && change(booking), { schema: BookingSchema });
}

/** Every booking, oldest first, a page of the store at a time. */
export async function allBookings(store: Store): Promise<Booking[]> {
  const bookings: Booking[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({
      prefix: BOOKING,
      schema: BookingSchema,
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    bookings.push(...page.items.map((item) => item.value));
    cursor = page.nextCursor;
  } while (cursor);
  return bookings;
}
