/** `@toolsmith/core/testing`: the in-memory test client, for a server's own tests. */
export {
  type ClientHandler,
  createTestClient,
  type Exchange,
  type TestClient,
  type TestClientOptions,
  type TestSubscription,
  type WireRecord,
} from "./client.js";
