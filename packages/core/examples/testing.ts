// The @example blocks of core's testing/ layer: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import { LATEST_HANDSHAKE_VERSION, type Server } from "@toolsmith/core";
import { createTestClient, type TestClient } from "@toolsmith/core/testing";

export async function add(server: Server) {
  //#region TestClient
  const client = await createTestClient(server, { protocolVersion: LATEST_HANDSHAKE_VERSION });
  const result = await client.callTool("add", { a: 1, b: 2 });
  //#endregion TestClient
  return result;
}

export async function report(client: TestClient) {
  //#region TestClient.task
  const task = await client.task("report", { month: "November" });
  const done = await task.wait(); // answers its questions with the client's `elicit`
  //#endregion TestClient.task
  return done;
}
