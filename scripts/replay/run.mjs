#!/usr/bin/env node
// Replay the scripted sessions against the build of two checkouts and compare what came back, byte for byte but for
// what is random (see transcript.mjs). Exit 0: no difference; 1: differences (printed); 2: the replay could not run.
//
//   node scripts/replay/run.mjs --before <checkout> --after <checkout> [--out dir] [--only stdio,http,redis] [--quick]
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { compare } from "./diff.mjs";
import { HTTP_SESSIONS } from "./sessions-http.mjs";
import { REDIS_SESSIONS } from "./sessions-redis.mjs";
import { STDIO_SESSIONS } from "./sessions-stdio.mjs";
import { render, STOPPED, transcriptText } from "./transcript.mjs";

const GROUPS = { stdio: STDIO_SESSIONS, http: HTTP_SESSIONS, redis: REDIS_SESSIONS };

/** The sessions to play: `only` names groups ("stdio,http") or sessions (a part of their name). */
export function sessionsFor(only, quick) {
  const all = Object.entries(GROUPS).flatMap(([group, sessions]) => sessions.map((session) => ({ group, session })));
  const wanted = only?.split(",").map((word) => word.trim()) ?? (quick ? ["stdio", "http"] : undefined);
  return all
    .filter(({ group, session }) => !wanted || wanted.some((w) => w === group || session.name.includes(w)))
    .map(({ session }) => session);
}

/** Play `sessions` against `checkout`: each session rendered ({ name, exchanges, stderr, ms }). */
export async function play(checkout, sessions, options = {}) {
  const out = [];
  for (const session of sessions) {
    const started = performance.now();
    const result = await session.run(checkout, options);
    out.push({ name: session.name, exchanges: render(result), stderr: result.stderr, ms: performance.now() - started });
    options.onSession?.(session.name, out.at(-1));
  }
  return out;
}

/** Replay `sessions` against both checkouts and compare; with `out`, the transcripts and the report go there. */
export async function replay({ before, after, sessions, out, log = () => {} }) {
  // The Redis server comes from the before checkout's @toolsmith/redis/testing, for both sides.
  const options = (side) => ({
    redisFrom: before,
    onSession: (name, session) =>
      log(`  ${side} ${name}: ${session.exchanges.length} exchanges, ${Math.round(session.ms)} ms`),
  });
  // Side by side: nothing in the replay depends on timing, and the two builds share nothing but the machine.
  const [a, b] = await Promise.all([
    play(before, sessions, options("before")),
    play(after, sessions, options("after")),
  ]);
  const result = compare(a, b);
  if (out) {
    mkdirSync(out, { recursive: true });
    writeFileSync(`${out}/before.txt`, transcriptText(a));
    writeFileSync(`${out}/after.txt`, transcriptText(b));
    writeFileSync(`${out}/before-stderr.txt`, a.map((s) => `#### ${s.name}\n${s.stderr}`).join("\n"));
    writeFileSync(`${out}/after-stderr.txt`, b.map((s) => `#### ${s.name}\n${s.stderr}`).join("\n"));
    writeFileSync(`${out}/differences.txt`, `${result.report.join("\n")}\n`);
  }
  return { ...result, before: a, after: b };
}

async function main() {
  const { values } = parseArgs({
    options: {
      before: { type: "string" },
      after: { type: "string" },
      out: { type: "string" },
      only: { type: "string" },
      quick: { type: "boolean", default: false },
    },
  });
  if (!values.before || !values.after) {
    process.stderr.write(
      "usage: node scripts/replay/run.mjs --before <checkout> --after <checkout> [--out dir] [--only stdio,http,redis] [--quick]\n",
    );
    process.exit(2);
  }
  const sessions = sessionsFor(values.only, values.quick);
  const started = performance.now();
  const log = (line) => process.stdout.write(`${line}\n`);
  log(`replaying ${sessions.length} sessions: before ${resolve(values.before)}, after ${resolve(values.after)}`);
  const result = await replay({
    before: resolve(values.before),
    after: resolve(values.after),
    sessions,
    out: values.out && resolve(values.out),
    log,
  });
  if (result.report.length > 0) log(`\n${result.report.join("\n")}`);
  log(
    `${result.compared} exchanges compared, ${result.identical} identical, ${result.different} different (${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
  if (values.out) log(`transcripts and differences in ${resolve(values.out)}`);
  // The before side is the reference: a session it could not finish is a replay to fix, not a finding.
  const stopped = result.before.flatMap((session) => {
    const failed = session.exchanges.find((e) => e.label === STOPPED || e.lines.some((line) => line.startsWith("! ")));
    return failed
      ? [`${session.name} › ${failed.label}: ${failed.lines.filter((l) => l.startsWith("! ")).join(" ")}`]
      : [];
  });
  for (const where of stopped) log(`the replay could not finish against the before checkout: ${where}`);
  process.exitCode = stopped.length > 0 ? 2 : result.different === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main().catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(2);
  });
}
