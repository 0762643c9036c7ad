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

/**
 * Where the desk keeps its bookings: this process's memory (the default), or a store every process of the desk
 * shares (`redisBookings`), so a booking made on one process can be checked in on another.
 */
export interface BookingStore {
  /** A new booking id, never given before by any process sharing the store. */
  nextId(): Promise<string>;
  get(id: string): Promise<Booking | undefined>;
  /** Keep it (a new booking, or one whose status changed). */
  put(booking: Booking): Promise<void>;
  /** Every booking, oldest first. */
  all(): Promise<Booking[]>;
}

/** Booking ids: TD-1001, TD-1002, … */
export function bookingId(sequence: number): string {
  return `TD-${1000 + sequence}`;
}

/** Bookings in this process's memory: gone when it stops, and unseen by any other process. */
export function memoryBookings(): BookingStore {
  const bookings = new Map<string, Booking>();
  let made = 0;
  return {
    nextId: async () => bookingId(++made),
    get: async (id) => bookings.get(id),
    put: async (booking) => {
      bookings.set(booking.id, booking);
    },
    all: async () => [...bookings.values()],
  };
}
