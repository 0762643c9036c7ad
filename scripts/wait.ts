/**
 * How long a test waits for something another process should do (say a line, answer, exit): minutes, because on a
 * loaded machine everything is slow. Only a hang takes this long, and the error then names what was awaited.
 */
export const WAIT_MS = 5 * 60_000;

/**
 * Resolves with the first value `find` gives that is neither undefined nor false, looking every `step` ms; rejects
 * after `ms`, naming `what` it waited for.
 */
export async function until<T>(
  find: () => T | undefined | Promise<T | undefined>,
  what: string,
  ms = WAIT_MS,
  step = 5,
): Promise<Exclude<T, false | undefined>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await find();
    if (found !== undefined && found !== false) return found as Exclude<T, false | undefined>;
    if (Date.now() > deadline) throw new Error(`gave up after ${ms / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, step));
  }
}

/** Resolves as `promise` does; rejects after `ms`, naming `what` it waited for. */
export function within<T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up after ${ms / 1000} s waiting for ${what}`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
