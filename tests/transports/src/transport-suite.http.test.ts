import { SdkHttpError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type LogEntry, levelPasses } from "@toolsmith/core";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import { afterAll, beforeAll, expect } from "vitest";
import { createFixtureServer, type FixtureName, LIMIT_BYTES } from "./fixture-server.js";
import { createTasksFixture } from "./tasks-fixture.js";
import { transportSuite } from "./transport-suite.js";

// One listener per fixture for the whole file, in this process; every client is a new HTTP client of it.
const listeners = new Map<FixtureName, HttpServer>();
const errors: LogEntry[] = [];
const logger = (entry: LogEntry) => {
  if (levelPasses(entry.level, "warning")) errors.push(entry);
};

beforeAll(async () => {
  for (const [name, pageSize] of [
    ["main", undefined],
    ["paged", 2],
  ] as const) {
    const server = createFixtureServer(pageSize === undefined ? { logger } : { pageSize, logger });
    listeners.set(name, await listen(server, { port: 0, log: null, maxBodyBytes: LIMIT_BYTES }));
  }
  listeners.set("tasks", await listen(createTasksFixture({ logger }), { port: 0, log: null }));
});
afterAll(async () => {
  await Promise.all([...listeners.values()].map((listener) => listener.close()));
  // No request made a server log a warning or an error of its own (what stdio's stderr logger would print).
  expect(errors).toEqual([]);
});

transportSuite("Streamable HTTP", {
  transport: (fixture) => {
    const listener = listeners.get(fixture);
    if (!listener) throw new Error(`no listener for ${fixture}`);
    return new StreamableHTTPClientTransport(new URL(listener.url));
  },
  // A body over maxBodyBytes is 413.
  isOversizeError: (error) => error instanceof SdkHttpError && error.status === 413,
  ownServer: async () => {
    const own = await listen(createFixtureServer({ logger }), { port: 0, log: null });
    return { transport: () => new StreamableHTTPClientTransport(new URL(own.url)), shutdown: () => own.close() };
  },
});
