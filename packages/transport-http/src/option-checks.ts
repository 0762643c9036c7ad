import { DefinitionError } from "@toolsmith/core";

// The limits' options, checked once when the server is defined: NaN (`Number(process.env.UNSET)`) compares false
// with everything, so a limit given as NaN would be no limit at all.

const COUNTS = ["maxSessions", "maxSessionsPerCaller", "maxStreams", "maxStreamsPerCaller"] as const;

/** A DefinitionError for a session or stream limit that is no whole number, or an idle time that is not above 0. */
export function checkLimits(options: { readonly [name in (typeof COUNTS)[number] | "sessionIdleMs"]?: number }): void {
  for (const name of COUNTS) {
    const value = options[name];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new DefinitionError(`${name} must be a whole number, not ${String(value)}`);
    }
  }
  const idle = options.sessionIdleMs;
  if (idle !== undefined && !(Number.isSafeInteger(idle) && idle > 0)) {
    throw new DefinitionError(`sessionIdleMs must be a whole number of milliseconds above 0, not ${String(idle)}`);
  }
}
