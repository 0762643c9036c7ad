import { idText } from "@toolsmith/core";
import { isPlainObject } from "@toolsmith/core/internal";

// What the transport itself reads of a POSTed JSON-RPC body; core reads the rest.

/** The id's JSON text as the body carries it (exact past 2^53; the last of duplicate keys, as JSON.parse reads it). */
export function idOf(message: unknown, body: string): string {
  return isPlainObject(message) ? idText(message.id, body) : "null";
}

/** True for a JSON-RPC request: a method and an id, so an answer is owed. */
export function isRequest(message: unknown): message is Record<string, unknown> & { method: string } {
  return isPlainObject(message) && typeof message.method === "string" && message.id !== undefined;
}
