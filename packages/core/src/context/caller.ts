// Who a per-caller limit counts against: one definition for the transports' sessions and streams and core's tasks.

/**
 * The caller's key for per-caller limits: `subject <s>` when authenticated, else `address <a>` from the peer's
 * network address (asked only then); undefined when neither is known.
 */
export function callerKey(
  subject: string | undefined,
  address: (() => string | undefined) | undefined,
): string | undefined {
  if (subject !== undefined) return `subject ${subject}`;
  const at = address?.();
  return at === undefined ? undefined : `address ${at}`;
}
