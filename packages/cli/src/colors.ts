import pc from "picocolors";

export type Colors = ReturnType<typeof pc.createColors>;

/** Colours for a stream a person watches: on a TTY, unless NO_COLOR is set or --no-color was given. */
export function colorsFor(stream: NodeJS.WriteStream | { isTTY?: boolean }, enabled = true): Colors {
  const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "";
  const forced = process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== "0";
  return pc.createColors(enabled && !noColor && (forced || stream.isTTY === true));
}
