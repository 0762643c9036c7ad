// Preloaded (`node --expose-gc --import`) into a server by bench/http.mjs for the memory soak and for --profile,
// never for the throughput rounds: SIGTERM exits normally (so `--cpu-prof` writes its profile), and SIGUSR2
// answers "heap <bytes>" on stdout: the heap in use after full collections with pauses between them, so that
// FinalizationRegistry callbacks run too (undici's Request keeps each signal's listener until its own runs).
process.on("SIGTERM", () => process.exit(0));
process.on("SIGUSR2", () => {
  const collect = (times) => {
    globalThis.gc?.();
    if (times > 1) setTimeout(() => collect(times - 1), 100);
    else process.stdout.write(`heap ${process.memoryUsage().heapUsed}\n`);
  };
  collect(3);
});
