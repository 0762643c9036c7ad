/** `@toolsmith/core/testing`: the in-memory test client, for a server's own tests. */
export type { ClientHandler } from "./asks.js";
export {
  createTestClient,
  type TestClient,
  type TestClientOptions,
  type TestListenFilter,
} from "./client.js";
export type { TestSubscription } from "./listen.js";
export type {
  TaskHandle,
  TaskWaitOptions,
  TestDetailedTask,
  TestTask,
  TestTaskStatus,
} from "./tasks.js";
export type { Exchange, WireRecord } from "./wire.js";
