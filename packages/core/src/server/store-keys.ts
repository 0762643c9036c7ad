import type { Store } from "../context/store.js";
import type { ResourceTemplateDefinition, StaticResourceDefinition } from "../registry/definitions.js";
import type { InputSchema } from "../schema/schema-adapter.js";

/**
 * Tell `updated` the URI a change to a resource's store keys feeds (`storeKey`: a fixed URI's one key, a template's
 * `{ prefix, uri }`), as the change is made on this process: `server.resourceUpdated` carries it to the others, once.
 */
export function watchStoreKeys(
  store: Store,
  definition: StaticResourceDefinition | ResourceTemplateDefinition<InputSchema | undefined>,
  updated: (uri: string) => void,
): void {
  if ("uriTemplate" in definition) {
    const fed = definition.storeKey;
    if (fed === undefined) return;
    store.watch({ prefix: fed.prefix }, ({ key }) => {
      const uri = fed.uri(key);
      if (uri !== undefined) updated(uri);
    });
    return;
  }
  const { storeKey, uri } = definition;
  if (storeKey !== undefined) store.watch(storeKey, () => updated(uri));
}
