import { McpError } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";
import type { MaybePromise } from "../wire/maybe.js";
import type { Sealer } from "../wire/seal.js";

const CURSOR = "toolsmith.cursor.v1";

// What names a listed item uniquely: a tool's or prompt's name, a resource's URI, a template's URI template.
function identity(item: unknown): string | undefined {
  const { uri, uriTemplate, name } = (item ?? {}) as { uri?: unknown; uriTemplate?: unknown; name?: unknown };
  const found = uriTemplate ?? uri ?? name;
  return typeof found === "string" ? found : undefined;
}

/**
 * One page of `size` of a list's `items` under `key`, from `cursor` (sealed by `sealer`, so a client can neither
 * forge one nor use one from another list), with `nextCursor` when more follow. A cursor that does not open is -32602.
 */
export function page(
  sealer: Sealer,
  size: number,
  key: string,
  items: unknown[],
  cursor: string | undefined,
): MaybePromise<Record<string, unknown>> {
  if (cursor === undefined && items.length <= size) return { [key]: items };
  const from = (offset: number): MaybePromise<Record<string, unknown>> => {
    const end = offset + size;
    const result: Record<string, unknown> = { [key]: items.slice(offset, end) };
    if (end >= items.length) return result;
    // The last item sent anchors the next page: items shown or hidden before it since (a guard, a registration)
    // neither repeat nor skip one; its offset is the fallback when it is gone.
    const after = identity(items[end - 1]);
    return sealer.seal(CURSOR, { k: key, o: end, a: after }).then((next) => ({ ...result, nextCursor: next }));
  };
  if (cursor === undefined) return from(0);
  return sealer.open(CURSOR, cursor).then((opened) => {
    const position = opened as { k?: unknown; o?: unknown; a?: unknown } | undefined;
    if (position?.k !== key || !Number.isSafeInteger(position.o) || (position.o as number) < 0) {
      throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${JSON.stringify(cursor)}`);
    }
    const anchor = typeof position.a === "string" ? items.findIndex((item) => identity(item) === position.a) : -1;
    return from(anchor >= 0 ? anchor + 1 : Math.min(position.o as number, items.length));
  });
}
