/**
 * Resolves after `ms`, or rejects with the signal's reason once it aborts: node:timers/promises' `setTimeout`, in web
 * APIs alone, so the fixtures also run where there is no Node (a Worker).
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal.addEventListener("abort", stop, { once: true });
  });
}
