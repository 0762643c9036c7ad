// @toolsmith/core/engine-suite: the shared suites an engine runs in its vitest tests, one per role, and the fixtures
// they use (vitest is an optional peer of core: this entry needs it, no other does).
import type { Engine } from "../engine/engine.js";
import { serverBusSuite } from "./bus.js";
import { sessionChannelSuite } from "./channel.js";
import { eventLogSuite } from "./events.js";
import type { MakeEngines } from "./helpers.js";
import { requestLeasesSuite } from "./leases.js";
import { lifecycleSuite } from "./lifecycle.js";
import { recordStoreSuite } from "./records.js";
import { sessionRecordsSuite } from "./session-records.js";
import { sessionStoreSuite } from "./sessions.js";
import { taskStoreSuite } from "./tasks.js";
import { keyValueStoreSuite } from "./values.js";

export { serverBusSuite } from "./bus.js";
export { sessionChannelSuite } from "./channel.js";
export { eventLogSuite } from "./events.js";
export {
  countFollows,
  eventually,
  Heard,
  type MadeEngines,
  type MakeEngines,
  ROOMY,
  recordOf,
  taskOf,
  untilLive,
} from "./helpers.js";
export { requestLeasesSuite } from "./leases.js";
export { lifecycleSuite } from "./lifecycle.js";
export { recordStoreSuite } from "./records.js";
export { sessionRecordsSuite } from "./session-records.js";
export { sessionStoreSuite } from "./sessions.js";
export { taskStoreSuite } from "./tasks.js";
export { keyValueStoreSuite } from "./values.js";

/**
 * The behaviours every engine must have, for an engine's own tests to run: each role's suite, all given the same
 * `make`, which gives fresh engines of one server (one, or several as several processes would hold); tests that
 * need two processes skip themselves with one. An engine that plays only some roles runs their suites alone
 * (`lifecycleSuite` always; `serverBusSuite`, `taskStoreSuite`, `keyValueStoreSuite`, `recordStoreSuite`; the session roles' suites each need the session roles
 * before them: `sessionStoreSuite`, `eventLogSuite`, `sessionChannelSuite`, `requestLeasesSuite`; `sessionRecordsSuite`
 * needs `SessionStore` and `RecordStore`).
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
  keyValueStoreSuite(name, make);
  recordStoreSuite(name, make);
  sessionRecordsSuite(name, make);
}
