import { errorLine, httpStatusOf } from "@toolsmith/core";
import { answer, type Outgoing } from "./exchange.js";

// The HTTP status of every JSON-RPC reply: core decides it for the replies it writes, the transport for its own.

/** The transport's own JSON-RPC refusal; `id` is the request id's JSON text (`idOf`), null when there is none. */
export function refuse(status: number, id: string | null, code: number, message: string): Outgoing {
  return answer(status, errorLine(id ?? "null", { code, message }));
}

/** The status of a 2026-07-28 reply core wrote, by its error code (undefined for a result). */
export const statelessStatus = (code: number | undefined): number => httpStatusOf(code, "stateless");

/** The status of a handshake-era reply core wrote, by its error code (undefined for a result). */
export const handshakeStatus = (code: number | undefined): number => httpStatusOf(code, "handshake");
