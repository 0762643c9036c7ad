import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { type Completion, ErrorCode, isMcpError, type RequestContext, type Store } from "@toolsmith/core";
import { McpServer, type McpServerOptions, prompt, resource, tool } from "@toolsmith/decorators";
import { z } from "zod";
import { AIRPORTS } from "./airports.js";
import {
  allBookings,
  type Booking,
  changeBooking,
  keepBooking,
  nextBookingId,
  type Offer,
  readBooking,
} from "./bookings.js";

export type { Booking, Meal, Offer, Seat } from "./bookings.js";

interface Airline {
  code: string;
  name: string;
  /** Airports it flies between; undefined: everywhere. */
  network?: readonly string[];
  charter?: boolean;
}

const AIRLINES: readonly Airline[] = [
  { code: "NW", name: "Northwind Air" },
  { code: "CB", name: "Cobalt Airways" },
  { code: "SL", name: "Sunline" },
  {
    code: "AU",
    name: "Aurora Air",
    network: ["LHR", "JFK", "CDG", "FRA", "AMS", "SFO", "LAX", "ORD", "DXB", "SIN", "HND"],
  },
  // A broker that quotes charters by hand: slow, so only searched when asked for.
  { code: "PC", name: "Polar Charter", charter: true },
];

export interface SearchRecord {
  id: string;
  route: string;
  date: string;
  status: "running" | "done" | "cancelled";
  airlinesSearched: number;
  airlinesTotal: number;
}

export interface TravelDeskOptions {
  /** How long a scheduled airline takes to quote (default 5 ms). */
  quoteLatencyMs?: number;
  /** How long the charter broker takes to quote (default 30 s). */
  charterLatencyMs?: number;
  /** Server options beyond the desk's own (an engine, a shared stateKey). */
  server?: McpServerOptions;
}

const KNOWN = new Set(AIRPORTS.map((airport) => airport.code));
const airportCode = z
  .string()
  .regex(/^[A-Z]{3}$/, "an IATA code such as LHR")
  .refine((code) => KNOWN.has(code), "not an airport the desk knows; complete the argument to see them");
const OFFER_ID = /^([A-Z]{2})(\d{3,4})-([A-Z]{3})([A-Z]{3})-(\d{4}-\d{2}-\d{2})$/;

// One number per text, so fares and flight numbers are stable without a fares API.
function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

function offerFor(airline: Airline, from: string, to: string, date: string): Offer {
  const h = hash(`${airline.code}${from}${to}${date}`);
  const number = 100 + (h % 900);
  return {
    id: `${airline.code}${number}-${from}${to}-${date}`,
    airline: airline.name,
    flight: `${airline.code}${number}`,
    from,
    to,
    date,
    departs: `${String(6 + (h % 16)).padStart(2, "0")}:${String((h >>> 8) % 4 === 0 ? 0 : ((h >>> 8) % 4) * 15).padStart(2, "0")}`,
    price: { amount: (airline.charter ? 2400 : 89) + (h % 700), currency: "EUR" },
  };
}

function parseOffer(id: string): Offer | undefined {
  const match = OFFER_ID.exec(id);
  if (!match) return undefined;
  const [, code, , from = "", to = "", date = ""] = match;
  const airline = AIRLINES.find((candidate) => candidate.code === code);
  const offer = airline && offerFor(airline, from, to, date);
  return offer?.id === id ? offer : undefined;
}

/** Airport codes for what the user typed (a code or a city prefix); the core sends the first 100 and the total. */
export function airportsMatching(value: string, except?: string): Completion {
  const needle = value.trim().toLowerCase();
  return AIRPORTS.filter(
    ({ code, city }) =>
      code !== except && (code.toLowerCase().startsWith(needle) || city.toLowerCase().startsWith(needle)),
  ).map(({ code }) => code);
}

function itinerary(booking: Booking): string {
  const { offer } = booking;
  const start = `${offer.date.replaceAll("-", "")}T${offer.departs.replace(":", "")}00`;
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//toolsmith//travel-desk//EN",
    "BEGIN:VEVENT",
    `UID:${booking.id}@travel-desk`,
    `DTSTART:${start}`,
    `SUMMARY:${offer.flight} ${offer.from} to ${offer.to}`,
    `DESCRIPTION:${booking.passenger}, seat ${booking.seat}, booking ${booking.id}`,
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");
}

function plainSummary(booking: Booking): string {
  const { offer } = booking;
  return `${booking.passenger} flies ${offer.airline} ${offer.flight} from ${offer.from} to ${offer.to} on ${offer.date} at ${offer.departs}, ${booking.seat} seat. Booking ${booking.id} is ${booking.status}.`;
}

function missingCapability(error: unknown): boolean {
  return isMcpError(error) && error.code === ErrorCode.MissingRequiredClientCapability;
}

/** A travel desk: searches airlines, books with the user's confirmation, and keeps clients told of changes. */
export class TravelDesk extends McpServer {
  name = "travel-desk";
  version = "0.1.0";
  instructions =
    "Search flights with search_flights, then book an offer id with book_flight (the user confirms and picks a seat). bookings://{id} is live: subscribe to follow check-in and cancellation.";
  // Bookings live in the server's store (ctx.store); searches stay in this process's memory: travel://searches
  // shows this process's.
  readonly #searches: SearchRecord[] = [];
  readonly #quoteLatencyMs: number;
  readonly #charterLatencyMs: number;

  constructor(options: TravelDeskOptions = {}) {
    // Five items a page, so clients that list tools and resources have to follow cursors.
    super({ pageSize: 5, ...options.server });
    this.#quoteLatencyMs = options.quoteLatencyMs ?? 5;
    this.#charterLatencyMs = options.charterLatencyMs ?? 30_000;
    // Nothing to cancel yet: the tool appears with the first booking.
    this.#cancelTool()?.disable();
  }

  #cancelTool() {
    return this.toServer().registered("tool", "cancel_booking");
  }

  async #booking(store: Store, id: string): Promise<Booking> {
    const booking = await readBooking(store, id);
    if (!booking) throw new Error(`There is no booking ${id}; list_bookings shows them`);
    return booking;
  }

  /**
   * Move a booking to status `to` when its status is one of `from`, atomically (a booking another process moved
   * first keeps that process's change): the booking as kept, and the status it had.
   */
  async #setStatus(store: Store, id: string, to: Booking["status"], from: readonly Booking["status"][]) {
    let had: Booking["status"] | undefined;
    const booking = await changeBooking(store, id, (now) => {
      had = now.status;
      return from.includes(now.status) ? { ...now, status: to } : now;
    });
    if (!booking || had === undefined) throw new Error(`There is no booking ${id}; list_bookings shows them`);
    if (!from.includes(had)) return { booking, had };
    this.toServer().resourceUpdated(`bookings://${id}`);
    const active = (await allBookings(store)).some((candidate) => candidate.status !== "cancelled");
    if (!active) this.#cancelTool()?.disable();
    return { booking, had };
  }

  @tool({
    title: "Search flights",
    description:
      "Search every airline for one-way flights on a date. Returns offers whose id book_flight takes. Charters are slow to quote: ask for them only when needed.",
    input: {
      from: airportCode.describe("origin airport code"),
      to: airportCode.describe("destination airport code"),
      date: z.iso.date().describe("departure date, YYYY-MM-DD"),
      includeCharters: z.boolean().default(false).describe("also ask the charter broker (slow)"),
    },
    annotations: { readOnlyHint: true, openWorldHint: true },
  })
  async search_flights(
    { from, to, date, includeCharters }: { from: string; to: string; date: string; includeCharters?: boolean },
    ctx: RequestContext,
  ) {
    if (from === to) throw new Error("from and to are the same airport");
    const airlines = AIRLINES.filter((airline) => includeCharters || !airline.charter);
    const record: SearchRecord = {
      id: `S${this.#searches.length + 1}`,
      route: `${from}-${to}`,
      date,
      status: "running",
      airlinesSearched: 0,
      airlinesTotal: airlines.length,
    };
    this.#searches.push(record);
    ctx.log.info(`Searching ${airlines.length} airlines for ${from}→${to} on ${date}`);
    ctx.progress(0, airlines.length, "Searching");
    const offers: Offer[] = [];
    try {
      for (const airline of airlines) {
        // The airline's fares API, slow or fast; the client cancelling stops the search here.
        await sleep(airline.charter ? this.#charterLatencyMs : this.#quoteLatencyMs, undefined, { signal: ctx.signal });
        record.airlinesSearched++;
        if (airline.network && !(airline.network.includes(from) && airline.network.includes(to))) {
          ctx.log.warning(`${airline.name} does not fly ${from}→${to}; skipped`);
        } else {
          offers.push(offerFor(airline, from, to, date));
        }
        ctx.progress(record.airlinesSearched, airlines.length, `${airline.name} answered`);
      }
    } catch (error) {
      if (ctx.signal.aborted) record.status = "cancelled";
      throw error;
    }
    record.status = "done";
    offers.sort((a, b) => a.price.amount - b.price.amount);
    return { offers, searched: airlines.map((airline) => airline.name) };
  }

  @tool({
    title: "Book a flight",
    description:
      "Book an offer from search_flights for a passenger. The user confirms the fare and picks a seat and meal; nothing is charged if they decline.",
    // A name of at most 200 characters: a booking holds it, and a store value holds 1 MiB at most (a longer name was
    // refused only when written, after the user confirmed the fare and an id was taken).
    input: { offerId: z.string(), passenger: z.string().min(1).max(200).describe("full name as on the passport") },
    annotations: { destructiveHint: false, openWorldHint: true },
  })
  async book_flight({ offerId, passenger }: { offerId: string; passenger: string }, ctx: RequestContext) {
    const offer = parseOffer(offerId);
    if (!offer) throw new Error(`There is no offer ${offerId}; search_flights lists the current ones`);
    // In 2026-07-28 this method runs again once the answer comes back: nothing may change before the question.
    const answer = await ctx.elicit({
      message: `Book ${offer.airline} ${offer.flight} ${offer.from}→${offer.to} on ${offer.date} at ${offer.departs} for ${passenger}, ${offer.price.amount} ${offer.price.currency}?`,
      schema: {
        seat: z.enum(["window", "aisle", "middle"]).describe("seat preference"),
        meal: z.enum(["standard", "vegetarian", "vegan", "none"]).optional().describe("meal (default standard)"),
      },
    });
    if (answer.action !== "accept") {
      ctx.log.info(`The user ${answer.action === "decline" ? "declined" : "dismissed"} booking ${offer.flight}`);
      return `Not booked: the user ${answer.action === "decline" ? "declined the fare" : "closed the confirmation"}. Nothing was charged.`;
    }
    const booking: Booking = {
      id: await nextBookingId(ctx.store),
      offer,
      passenger,
      seat: answer.content.seat,
      meal: answer.content.meal ?? "standard",
      status: "confirmed",
    };
    await keepBooking(ctx.store, booking);
    this.#cancelTool()?.enable();
    ctx.log.info(`Booked ${booking.id}`);
    return {
      content: [
        { type: "text" as const, text: `Booked ${booking.id}: ${plainSummary(booking)}` },
        {
          type: "resource_link" as const,
          uri: `bookings://${booking.id}`,
          name: booking.id,
          mimeType: "application/json",
        },
      ],
      structuredContent: { bookingId: booking.id, seat: booking.seat, meal: booking.meal },
    };
  }

  @tool({ description: "Check a passenger in for a confirmed booking.", input: { bookingId: z.string() } })
  async check_in({ bookingId }: { bookingId: string }, ctx: RequestContext) {
    const { booking, had } = await this.#setStatus(ctx.store, bookingId, "checked-in", ["confirmed"]);
    if (had !== "confirmed") throw new Error(`Booking ${bookingId} is ${had}`);
    return `Checked in: ${booking.passenger}, ${booking.offer.flight}, ${booking.seat} seat`;
  }

  @tool({
    description: "Cancel a booking and refund it. Listed only while there is a booking to cancel.",
    input: { bookingId: z.string() },
    annotations: { destructiveHint: true, idempotentHint: true },
  })
  async cancel_booking({ bookingId }: { bookingId: string }, ctx: RequestContext) {
    const { booking, had } = await this.#setStatus(ctx.store, bookingId, "cancelled", ["confirmed", "checked-in"]);
    if (had === "cancelled") return `Booking ${bookingId} was already cancelled`;
    return `Cancelled ${bookingId}; ${booking.offer.price.amount} ${booking.offer.price.currency} will be refunded`;
  }

  @tool({ description: "Every booking with its status.", annotations: { readOnlyHint: true } })
  async list_bookings(_args: unknown, ctx: RequestContext) {
    return {
      bookings: (await allBookings(ctx.store)).map(({ id, offer, passenger, status }) => ({
        id,
        flight: offer.flight,
        date: offer.date,
        passenger,
        status,
      })),
    };
  }

  @tool({
    description: "A short, friendly summary of a booked trip, written by the client's model when it offers one.",
    input: { bookingId: z.string() },
    annotations: { readOnlyHint: true },
  })
  async trip_summary({ bookingId }: { bookingId: string }, ctx: RequestContext) {
    const booking = await this.#booking(ctx.store, bookingId);
    try {
      const reply = await ctx.sample({
        systemPrompt: "You are a travel agent. Be warm and brief.",
        messages: [
          {
            role: "user",
            content: {
              type: "text",
              text: `Summarise this trip in two sentences for the traveller: ${plainSummary(booking)}`,
            },
          },
        ],
        maxTokens: 200,
      });
      const block = Array.isArray(reply.content) ? reply.content[0] : reply.content;
      if (block?.type === "text" && typeof block.text === "string") {
        return { summary: block.text, writtenBy: reply.model };
      }
    } catch (error) {
      // A client without sampling still gets a summary; anything else (including 2026's input round) goes up.
      if (!missingCapability(error)) throw error;
      ctx.log.info("The client offers no sampling; writing the summary from the booking");
    }
    return { summary: plainSummary(booking), writtenBy: "travel-desk" };
  }

  @tool({
    description:
      "Save a booking's itinerary (.ics) into the first folder the client shares (its roots). Returns the path; writes only under the system temp folder in this example.",
    input: { bookingId: z.string() },
  })
  async save_itinerary({ bookingId }: { bookingId: string }, ctx: RequestContext) {
    const booking = await this.#booking(ctx.store, bookingId);
    let roots: { uri: string; name?: string }[];
    try {
      roots = await ctx.roots();
    } catch (error) {
      if (!missingCapability(error)) throw error;
      return {
        saved: false,
        reason: "the client shares no folders (no roots capability)",
        itinerary: itinerary(booking),
      };
    }
    const folder = roots.find((root) => root.uri.startsWith("file://"));
    if (!folder)
      return { saved: false, reason: "none of the client's roots is a folder", itinerary: itinerary(booking) };
    const path = join(fileURLToPath(folder.uri), "itineraries", `${booking.id}.ics`);
    const inTemp = !relative(tmpdir(), path).startsWith("..");
    if (inTemp) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, itinerary(booking));
    }
    return { saved: inTemp, path, root: folder.name ?? folder.uri };
  }

  @resource("bookings://{id}", {
    description: "One booking, live: subscribe to hear when its status changes.",
    mimeType: "application/json",
    list: "listBookings",
  })
  booking({ id }: { id: string }, ctx: RequestContext) {
    return readBooking(ctx.store, id);
  }

  async listBookings(ctx: RequestContext) {
    return (await allBookings(ctx.store)).map((booking) => ({
      uri: `bookings://${booking.id}`,
      name: `${booking.id} ${booking.offer.flight} ${booking.offer.date}`,
      mimeType: "application/json",
    }));
  }

  @resource("airports://{code}", {
    description: "One airport; its code completes from what the user typed.",
    mimeType: "application/json",
    complete: { code: (value) => airportsMatching(value) },
  })
  airport({ code }: { code: string }) {
    return AIRPORTS.find((airport) => airport.code === code.toUpperCase());
  }

  @resource("travel://searches", { description: "Recent searches and how they ended.", mimeType: "application/json" })
  searches() {
    return { searches: this.#searches };
  }

  @resource("travel://fare-rules", { description: "The fare rules every booking follows.", mimeType: "text/plain" })
  fareRules() {
    return "Economy fares. Free cancellation until check-in; refunds go to the card on file within 7 days.";
  }

  @prompt({
    title: "Plan a trip",
    description: "Plan a trip between two airports: the assistant searches, compares and offers to book.",
    args: {
      from: z.string().describe("origin airport code"),
      to: z.string().describe("destination airport code"),
      month: z.string().optional().describe("when, roughly"),
    },
    complete: {
      from: (value) => airportsMatching(value),
      // The origin, once chosen, is not offered as a destination.
      to: (value, { arguments: known }) => airportsMatching(value, known.from),
    },
  })
  plan_trip({ from, to, month }: { from: string; to: string; month?: string }) {
    return `Find me flights from ${from} to ${to}${month ? ` in ${month}` : ""}. Compare the three cheapest, then offer to book the one I pick.`;
  }
}
