import type { Store } from "@toolsmith/core";
import { z } from "zod";

/**
 * Which notes carry each tag, kept in the server's store beside the notes (one record a tag: the ids, in the order
 * they were added) and changed with them: reading notes://tags costs the index's size, not a walk over every note.
 * Tags are user input, so they are only ever keys and JSON strings, never property names.
 */
const TAG = "notes/tag:";
const Ids = z.array(z.string());
const tagKey = (tag: string) => `${TAG}${tag}`;

/** Add note `id` to each of its tags (atomically per tag: two processes adding at once both count). */
export async function addToTags(store: Store, id: string, tags: readonly string[]): Promise<void> {
  for (const tag of new Set(tags)) {
    await store.update(tagKey(tag), (ids) => (ids?.includes(id) ? ids : [...(ids ?? []), id]), { schema: Ids });
  }
}

/** Take note `id` out of each of its tags; a tag no note carries any more goes. */
export async function removeFromTags(store: Store, id: string, tags: readonly string[]): Promise<void> {
  for (const tag of new Set(tags)) {
    await store.update(
      tagKey(tag),
      (ids) => {
        const left = ids?.filter((candidate) => candidate !== id);
        return left?.length ? left : undefined;
      },
      { schema: Ids },
    );
  }
}

/** The index of notes 1, 2, … written at once (a record a tag), merged with what is there. */
export async function seedTags(store: Store, notes: readonly { tags: readonly string[] }[]): Promise<void> {
  const index = new Map<string, string[]>();
  for (const [at, note] of notes.entries()) {
    for (const tag of new Set(note.tags)) index.set(tag, [...(index.get(tag) ?? []), String(at + 1)]);
  }
  for (const [tag, seeded] of index) {
    await store.update(tagKey(tag), (ids) => [...seeded.filter((id) => !ids?.includes(id)), ...(ids ?? [])], {
      schema: Ids,
    });
  }
}

/** `{"tag":["id",…],…}` in the order of the tags' keys, written directly: as an object, a tag named like a result field would be read as one. */
export async function tagsJson(store: Store): Promise<string> {
  const members: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ prefix: TAG, schema: Ids, limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const { key, value } of page.items)
      members.push(`${JSON.stringify(key.slice(TAG.length))}:${JSON.stringify(value)}`);
    cursor = page.nextCursor;
  } while (cursor);
  return `{${members.join(",")}}`;
}
