import { createWriteStream, type WriteStream } from "node:fs";
import { type Colors, colorsFor } from "./colors.js";

export interface LogSink {
  write(line: string): void;
  colors: Colors;
  close(): Promise<void>;
}

/** Where wire lines go: a file (`--log`, appended, plain) or stderr (coloured on a TTY). */
export function openLog(file: string | undefined, color: boolean): LogSink {
  if (file === undefined) {
    return {
      write: (line) => process.stderr.write(`${line}\n`),
      colors: colorsFor(process.stderr, color),
      close: async () => {},
    };
  }
  const stream: WriteStream = createWriteStream(file, { flags: "a" });
  stream.on("error", (error) => process.stderr.write(`toolsmith: cannot write the log ${file}: ${error.message}\n`));
  return {
    write: (line) => stream.write(`${line}\n`),
    colors: colorsFor({ isTTY: false }),
    close: () => new Promise((resolve) => stream.end(resolve)),
  };
}
