import type { Engine } from "./engine.js";
import { serverBusSuite } from "./engine-suite-bus.test-util.js";
import { sessionChannelSuite } from "./engine-suite-channel.test-util.js";
import { eventLogSuite } from "./engine-suite-events.test-util.js";
import type { MakeEngines } from "./engine-suite-helpers.test-util.js";
import { requestLeasesSuite } from "./engine-suite-leases.test-util.js";
import { lifecycleSuite } from "./engine-suite-lifecycle.test-util.js";
import { sessionStoreSuite } from "./engine-suite-sessions.test-util.js";
import { taskStoreSuite } from "./engine-suite-tasks.test-util.js";

export { serverBusSuite } from "./engine-suite-bus.test-util.js";
export { sessionChannelSuite } from "./engine-suite-channel.test-util.js";
export { eventLogSuite } from "./engine-suite-events.test-util.js";
export type { MadeEngines, MakeEngines } from "./engine-suite-helpers.test-util.js";
export { requestLeasesSuite } from "./engine-suite-leases.test-util.js";
export { lifecycleSuite } from "./engine-suite-lifecycle.test-util.js";
export { sessionStoreSuite } from "./engine-suite-sessions.test-util.js";
export { taskStoreSuite } from "./engine-suite-tasks.test-util.js";

/**
 * The behaviours every engine must have, for an engine's own tests to run: each role's suite, all given the same
 * `make`, which gives fresh engines of one server (one, or several as several processes would hold); tests that
 * need two processes skip themselves with one. An engine that plays only some roles runs their suites alone
 * (`lifecycleSuite` always; `serverBusSuite`, `taskStoreSuite`; the session roles' suites each need the session roles
 * before them: `sessionStoreSuite`, `eventLogSuite`, `sessionChannelSuite`, `requestLeasesSuite`).
 * @example
 * ```ts source="examples/engine.ts#engineSuite"
 * engineSuite("memory", async () => {
 *   const engine = createMemoryEngine();
 *   return { engines: [engine], cleanup: async () => engine.close() };
 * });
 * ```
 */
export function engineSuite(name: string, make: MakeEngines<Engine>): void {
  lifecycleSuite(name, make);
  sessionStoreSuite(name, make);
  eventLogSuite(name, make);
  sessionChannelSuite(name, make);
  requestLeasesSuite(name, make);
  serverBusSuite(name, make);
  taskStoreSuite(name, make);
}
