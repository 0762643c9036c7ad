/** Any class, abstract or not: a server class or one of its parents. */
export type AnyClass = abstract new (...args: never[]) => unknown;

/**
 * The classes from `ctor` up to `stop` (the McpServer base, left out), root first: what a parent declares comes
 * before what its subclasses add (registrations, middleware).
 */
export function prototypeChain(ctor: object, stop: object): AnyClass[] {
  const chain: AnyClass[] = [];
  for (
    let current: unknown = ctor;
    typeof current === "function" && current !== stop;
    current = Object.getPrototypeOf(current)
  ) {
    chain.unshift(current as AnyClass);
  }
  return chain;
}
