// The one deadline of the replay: a wait for the server (a line, an event, an exit) that ends only if it hangs.

/** How long one wait may take before the replay says the server hung (a loaded machine is slow, never this slow). */
export const HANG_MS = 30_000;

/** A promise that resolves "late" after `ms` (unless cleared first); it keeps no process alive. */
export function deadline(ms = HANG_MS) {
  let timer;
  const promise = new Promise((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
    timer.unref();
  });
  return { promise, ms, clear: () => clearTimeout(timer) };
}
