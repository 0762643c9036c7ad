import { expect } from "vitest";
import { DefinitionError, McpError } from "../wire/errors.js";

// Shared by the core tests: run something that must fail, and hand back the error it failed with.

/** The DefinitionError `run` throws; fails the test when it throws nothing or something else. */
export function definitionError(run: () => unknown): DefinitionError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DefinitionError);
    return error as DefinitionError;
  }
  throw new Error("expected a DefinitionError");
}

/** The McpError `promise` rejects with (a JSON-RPC error reply); fails the test otherwise. */
export async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }
  throw new Error("expected a JSON-RPC error reply");
}
