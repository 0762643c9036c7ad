import { afterEach, vi } from "vitest";
import { createMemoryEngine, type MemoryEngine, type MemoryEngineOptions } from "./memory.js";

// What the memory engine's role tests share: an engine on a clock the test moves, closed after each test, and the
// error a call throws.

/** Memory engines on a moved clock, each closed (with timers and mocks restored) after its test. */
export function useTimedEngines(): (options?: Omit<MemoryEngineOptions, "now">) => {
  engine: MemoryEngine;
  advance(ms: number): void;
} {
  const engines: MemoryEngine[] = [];
  afterEach(() => {
    for (const engine of engines.splice(0)) engine.close();
    vi.useRealTimers();
    vi.restoreAllMocks();
  });
  return (options = {}) => {
    let now = 1_000_000;
    const engine = createMemoryEngine({ ...options, now: () => now });
    engines.push(engine);
    return {
      engine,
      advance(ms: number): void {
        now += ms;
      },
    };
  };
}

/** What `call` throws; a test failure when it returns. */
export function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw, and the call returned");
}
