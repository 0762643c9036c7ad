// The options every bench takes, read one way: pnpm's "--", --rounds, --only, --with and --profile, beside its own.
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const fromCwd = (path) => fileURLToPath(new URL(path, `file://${process.cwd()}/`));

/**
 * The command line's options: `own` (parseArgs specs) plus the shared ones. `--only "A,B"` names the servers to
 * measure; `--with "Toolsmith (before)=../wt-base/bench/servers/x.mjs"` (repeatable) measures another build side by
 * side; `--profile DIR` runs the measured processes under `node --cpu-prof` into DIR (read with bench/profile-top.mjs).
 */
export function benchOptions(own, { rounds }) {
  // pnpm hands the "--" of `pnpm bench -- --rounds 3` through to the script.
  const argv = process.argv.slice(2);
  const { values } = parseArgs({
    args: argv[0] === "--" ? argv.slice(1) : argv,
    options: {
      rounds: { type: "string", default: rounds },
      only: { type: "string" },
      with: { type: "string", multiple: true },
      profile: { type: "string" },
      ...own,
    },
  });
  const extra = (values.with ?? []).map((given) => {
    const at = given.indexOf("=");
    if (at < 1) throw new Error(`--with takes name=path, not ${given}`);
    return { name: given.slice(0, at), file: fromCwd(given.slice(at + 1)) };
  });
  return {
    values,
    only: values.only?.split(","),
    profile: values.profile && fromCwd(values.profile),
    extra,
  };
}
