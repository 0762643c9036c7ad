import type { RequestContext } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import { DefinitionError } from "../wire/errors.js";
import type { Resource } from "../wire/types.js";
import type { StaticResourceDefinition } from "./definitions.js";
import { allows } from "./guards.js";
import {
  type CompiledSkill,
  compileSkill,
  DIRECTORY_MIME_TYPE,
  SKILL_FILE,
  type SkillDefinition,
  type SkillEntry,
} from "./skill-compile.js";
import type { Registered } from "./table.js";

// The skills a server serves (io.modelcontextprotocol/skills): their entries for skills/list and skills/get, their
// directories for resources/directory/read, and each file as a resource of the server's own (resources/read).

/** The extension's identifier, under which a server with skills declares it. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/**
 * A registered skill. `remove()` takes it and its files away (a file another skill also lists stays while that one
 * does): a change of the resources list, told as any is.
 */
export interface RegisteredSkill {
  /** The URI of its `SKILL.md`, which names it. */
  readonly uri: string;
  readonly path: string;
  readonly removed: boolean;
  /** Its entry, as `skills/list` and `skills/get` send it. */
  entry(): SkillEntry;
  remove(): void;
}

/** Where a skill's files are registered: the server's own resources. */
export interface SkillResources {
  add(definition: StaticResourceDefinition): Registered<StaticResourceDefinition>;
}

// A file resource, and how many skills list it (a nested skill's files are its enclosing skill's too).
interface SharedFile {
  readonly registered: Registered<StaticResourceDefinition>;
  readonly digest: string;
  count: number;
}

export class SkillRegistry {
  readonly #skills = new Map<string, CompiledSkill>();
  readonly #files = new Map<string, SharedFile>();

  constructor(
    readonly resources: SkillResources,
    readonly report: (entry: LogEntry) => void,
    /** Told when the set of skills changes (what the server declares may change with it). */
    readonly changed: () => void,
  ) {}

  get size(): number {
    return this.#skills.size;
  }

  add(definition: SkillDefinition): RegisteredSkill {
    const skill = compileSkill(definition);
    if (this.#skills.has(skill.uri)) {
      throw new DefinitionError(`Skill "${skill.path}" is defined twice; give each skill its own path`);
    }
    for (const file of skill.files) {
      const shared = this.#files.get(file.uri);
      if (shared !== undefined && shared.digest !== file.digest) {
        throw new DefinitionError(
          `Skill "${definition.source ?? skill.path}", ${file.path}: another skill serves ${file.uri} with other content`,
        );
      }
    }
    const added: SharedFile[] = [];
    try {
      for (const file of skill.files) {
        const shared = this.#files.get(file.uri);
        if (shared) {
          shared.count++;
          added.push(shared);
          continue;
        }
        const fresh: SharedFile = {
          registered: this.resources.add(resourceOf(skill, file)),
          digest: file.digest,
          count: 1,
        };
        this.#files.set(file.uri, fresh);
        added.push(fresh);
      }
    } catch (error) {
      for (const file of added) this.#release(file);
      throw error;
    }
    this.#skills.set(skill.uri, skill);
    this.changed();
    let removed = false;
    return {
      uri: skill.uri,
      path: skill.path,
      get removed() {
        return removed;
      },
      entry: () => skill.entry,
      remove: () => {
        if (removed) return;
        removed = true;
        this.#skills.delete(skill.uri);
        for (const file of skill.files) {
          const shared = this.#files.get(file.uri);
          if (shared) this.#release(shared);
        }
        this.changed();
      },
    };
  }

  #release(shared: SharedFile): void {
    if (--shared.count > 0) return;
    this.#files.delete(shared.registered.key);
    shared.registered.remove();
  }

  /** True when a skill has a guard: what the skills methods answer depends on the caller. */
  guarded(): boolean {
    for (const skill of this.#skills.values()) if (skill.definition.guard !== undefined) return true;
    return false;
  }

  /** The entries of the skills this caller may see, in the order they were registered. */
  list(ctx: RequestContext): SkillEntry[] {
    const out: SkillEntry[] = [];
    for (const skill of this.#skills.values()) if (this.#sees(skill, ctx)) out.push(skill.entry);
    return out;
  }

  /** The skill whose `SKILL.md` is `uri`, when this caller may see it. */
  get(uri: string, ctx: RequestContext): SkillEntry | undefined {
    const skill = this.#skills.get(uri);
    return skill && this.#sees(skill, ctx) ? skill.entry : undefined;
  }

  /**
   * The children of the directory `uri` this caller may see: one of a skill's, or one of the path prefixes above
   * skills (`skill://acme` above `skill://acme/billing/refunds`), whose children are the next level down; undefined
   * when it is none.
   */
  directory(uri: string, ctx: RequestContext): readonly Resource[] | undefined {
    const above = new Map<string, Resource>();
    for (const skill of this.#skills.values()) {
      if (uri === skill.root || uri.startsWith(`${skill.root}/`)) {
        const children = skill.directories.get(uri);
        if (children && this.#sees(skill, ctx)) return children;
      } else if (skill.root.startsWith(`${uri}/`) && uri.length > "skill://".length && this.#sees(skill, ctx)) {
        const next = skill.root.slice(uri.length + 1).split("/")[0] as string;
        const child = `${uri}/${next}`;
        above.set(child, { uri: child, name: next, mimeType: DIRECTORY_MIME_TYPE });
      }
    }
    if (above.size === 0) return undefined;
    return [...above.values()].sort((a, b) => (a.uri < b.uri ? -1 : 1));
  }

  // A skill is served while each of its files is: a file resource disabled or removed (here, or by another process
  // of the server, whose handle ops apply here) takes the skill with it, as its manifest would no longer be complete.
  #sees(skill: CompiledSkill, ctx: RequestContext): boolean {
    for (const file of skill.files) if (this.#files.get(file.uri)?.registered.enabled !== true) return false;
    return allows(skill.definition.guard, ctx, this.report);
  }
}

// A skill's file as a resource: its SKILL.md named and described from the frontmatter (as the extension says).
function resourceOf(skill: CompiledSkill, file: CompiledSkill["files"][number]): StaticResourceDefinition {
  const { content } = file;
  const manifest = file.path === SKILL_FILE;
  const definition: StaticResourceDefinition = {
    uri: file.uri,
    name: manifest ? skill.name : `${skill.path}/${file.path}`,
    mimeType: file.mimeType,
    handler: () => content,
  };
  if (manifest) definition.description = skill.entry.frontmatter.description as string;
  if (skill.definition.guard !== undefined) definition.guard = skill.definition.guard;
  return definition;
}
