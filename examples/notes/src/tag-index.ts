/**
 * Which notes carry each tag, kept up to date as notes come and go: reading it costs its own size, not a walk
 * over every note. Maps, since tags are user input and may be named "__proto__" or "constructor".
 */
export class TagIndex {
  readonly #ids = new Map<string, Set<string>>();

  add(id: string, tags: readonly string[]): void {
    for (const tag of tags) {
      const ids = this.#ids.get(tag);
      if (ids) ids.add(id);
      else this.#ids.set(tag, new Set([id]));
    }
  }

  remove(id: string, tags: readonly string[]): void {
    for (const tag of tags) {
      const ids = this.#ids.get(tag);
      if (!ids) continue;
      ids.delete(id);
      if (ids.size === 0) this.#ids.delete(tag);
    }
  }

  /** The ids of the notes that carry `tag`, in the order they were added. */
  idsOf(tag: string): string[] {
    return [...(this.#ids.get(tag) ?? [])];
  }

  /** How many distinct tags there are. */
  get size(): number {
    return this.#ids.size;
  }

  /** `{"tag":["id",…],…}`, written directly: as an object, a tag named like a result field would be read as one. */
  toJson(): string {
    const members: string[] = [];
    for (const [tag, ids] of this.#ids) members.push(`${JSON.stringify(tag)}:${JSON.stringify([...ids])}`);
    return `{${members.join(",")}}`;
  }
}
