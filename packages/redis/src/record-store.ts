import {
  checkExpected,
  checkRecord,
  EngineUnavailable,
  type ListedRecord,
  RECORD_BOUNDS,
  type RecordStore,
  type RecordSwapOptions,
  type RecordWriteOptions,
  type StoredRecord,
  sessionEnded,
} from "@toolsmith/core/engine";
import type { RedisLifecycle } from "./lifecycle.js";
import { bounded } from "./options.js";
import { CLEAR_RECORDS, DELETE_RECORD, LIST_RECORDS, SWAP_RECORD, WRITE_RECORD } from "./record-scripts.js";

// Keys and scripts: record-scripts.ts. What one script may do is bounded, so no call holds Redis (single-threaded:
// every other process waits meanwhile) for long whatever the store holds: a list looks at LIST_MOST members (lapsed
// ones it removes) per round trip, going on in further ones until it has `limit` records or RECORD_BOUNDS.listBytes
// of values; a clear deletes CLEAR_MOST records a round trip. A write that finds the store full looks for ROOM_MOST
// lapsed records.
const LIST_MOST = 2000;
const CLEAR_MOST = 500;
const ROOM_MOST = 1000;

/** The record an HMGET of `v` and `n` found, if any. */
function recordOf([value, version]: (string | null)[]): StoredRecord | undefined {
  return typeof value === "string" && typeof version === "string" ? { value, version: Number(version) } : undefined;
}

/** Whether `a` comes before `b` in UTF-8 byte order (code point order), as ZRANGEBYLEX sorts. */
function before(a: string, b: string): boolean {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8")) < 0;
}

/**
 * The Redis engine's `RecordStore`: a record is a hash (its value and version) with Redis's own expiry, its key in a
 * sorted set listed by ZRANGEBYLEX. Each call is one round trip (a read one HMGET, a change one script: the version
 * check, the write and the bound cannot interleave across processes); a list or a clear that meets more than one
 * script's bounded work goes on in more.
 */
export class RedisRecordStore implements RecordStore {
  readonly #redis: RedisLifecycle;

  constructor(redis: RedisLifecycle) {
    this.#redis = redis;
  }

  readRecord(key: string): Promise<StoredRecord | undefined> {
    // A promise chain, not an async function (a read is on the path of every store get and update); it still
    // rejects, never throws.
    try {
      checkRecord(key);
      const open = this.#redis.started();
      return this.#redis.call(() => open.main.hmget(`${open.prefix}r:${key}`, "v", "n")).then(recordOf);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async writeRecord(key: string, value: string, options: RecordWriteOptions = {}): Promise<number | undefined> {
    const { ifVersion, ttlMs, session } = options;
    checkRecord(key, { value, ifVersion, ttlMs, session });
    const { maxRecords } = this.#redis.settings;
    const outcome = (await this.#redis.run(WRITE_RECORD, [
      key,
      value,
      ifVersion ?? "",
      ttlMs === undefined ? "" : bounded(ttlMs),
      maxRecords,
      ROOM_MOST,
      session ?? "",
    ])) as number;
    if (outcome === -1) throw this.#full();
    if (outcome === -2) throw sessionEnded(session as string);
    return outcome === 0 ? undefined : outcome;
  }

  swapRecord(
    key: string,
    expected: StoredRecord | undefined,
    value: string | undefined,
    options: RecordSwapOptions = {},
  ): Promise<number | StoredRecord | undefined> {
    const { ttlMs, session } = options;
    let swapped: Promise<unknown>;
    // A promise chain, not an async function (a swap is on the path of every store update); it still rejects.
    try {
      checkRecord(key, value === undefined ? { ttlMs } : { value, ttlMs, session });
      checkExpected(expected);
      swapped = this.#redis.run(SWAP_RECORD, [
        key,
        expected?.version ?? 0,
        expected?.value ?? "",
        value ?? "",
        value === undefined ? "" : "1",
        ttlMs === undefined ? "" : bounded(ttlMs),
        this.#redis.settings.maxRecords,
        ROOM_MOST,
        value === undefined ? "" : (session ?? ""),
      ]);
    } catch (error) {
      return Promise.reject(error);
    }
    return swapped.then((outcome) => {
      if (outcome === -1) throw this.#full();
      if (outcome === -2) throw sessionEnded(session as string);
      if (typeof outcome === "number") return outcome;
      const [found, version] = outcome as [string?, string?];
      return found === undefined ? undefined : { value: found, version: Number(version) };
    });
  }

  async deleteRecord(key: string, options: { readonly ifVersion?: number } = {}): Promise<boolean> {
    const { ifVersion } = options;
    checkRecord(key, { ifVersion });
    return (await this.#redis.run(DELETE_RECORD, [key, ifVersion ?? ""])) === 1;
  }

  async listRecords(
    prefix: string,
    options: { readonly after?: string; readonly limit: number },
  ): Promise<ListedRecord[]> {
    const { after, limit } = options;
    checkRecord(prefix, { limit });
    if (after !== undefined) checkRecord(after);
    // Redis compares the bytes: the range starts at the prefix, or past `after` when that is further on.
    let from = after !== undefined && !before(after, prefix) ? `(${after}` : prefix === "" ? "-" : `[${prefix}`;
    const listed: ListedRecord[] = [];
    let bytes = 0;
    for (;;) {
      const [found, resume, size] = (await this.#redis.run(LIST_RECORDS, [
        prefix,
        from,
        limit - listed.length,
        LIST_MOST,
        RECORD_BOUNDS.listBytes - bytes,
      ])) as [string[], string, number];
      for (let i = 0; i < found.length; i += 3) {
        listed.push({ key: found[i] as string, value: found[i + 1] as string, version: Number(found[i + 2]) });
      }
      bytes += size;
      if (resume === "" || listed.length >= limit || bytes >= RECORD_BOUNDS.listBytes) return listed;
      from = resume;
    }
  }

  async clearRecords(prefix: string): Promise<number> {
    checkRecord(prefix);
    let cleared = 0;
    for (;;) {
      const [deleted, more] = (await this.#redis.run(CLEAR_RECORDS, [prefix, CLEAR_MOST])) as [number, number];
      cleared += deleted;
      if (more === 0) return cleared;
    }
  }

  #full(): EngineUnavailable {
    const { maxRecords, retryAfterSeconds } = this.#redis.settings;
    return new EngineUnavailable(
      `The record store is full: it keeps at most ${maxRecords} live records, and one more must wait for one to be deleted or to expire`,
      { retryAfterSeconds },
    );
  }
}
