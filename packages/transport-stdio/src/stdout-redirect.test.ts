import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { redirectStdout, writeThrough } from "./stdout-redirect.js";

// Everything written to the stream so far (and consumed).
function drain(stream: PassThrough): string {
  const chunks: Buffer[] = [];
  for (let chunk = stream.read() as Buffer | null; chunk !== null; chunk = stream.read() as Buffer | null) {
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function streams() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  return { stdout, stderr, asStdout: stdout as unknown as NodeJS.WriteStream };
}

describe("redirectStdout", () => {
  it("sends user writes to stderr and the redirect's own writes to stdout", () => {
    const { stdout, stderr, asStdout } = streams();
    const redirect = redirectStdout(asStdout, stderr);
    stdout.write("user text\n");
    stdout.write(Buffer.from("user bytes\n"));
    expect(redirect.write('{"jsonrpc":"2.0","id":1,"result":{}}\n')).toBe(true);
    expect(drain(stdout)).toBe('{"jsonrpc":"2.0","id":1,"result":{}}\n');
    expect(drain(stderr)).toBe("user text\nuser bytes\n");
    redirect.restore();
  });

  it("passes encodings and callbacks of redirected writes through", async () => {
    const { stdout, stderr, asStdout } = streams();
    const redirect = redirectStdout(asStdout, stderr);
    const withEncoding = new Promise<void>((resolve, reject) => {
      (stdout.write as (chunk: string, encoding: BufferEncoding, cb: (error?: Error | null) => void) => boolean)(
        "aGVsbG8K",
        "base64",
        (error) => (error ? reject(error) : resolve()),
      );
    });
    const withCallback = new Promise<void>((resolve, reject) => {
      stdout.write("bye\n", (error) => (error ? reject(error) : resolve()));
    });
    await Promise.all([withEncoding, withCallback]);
    expect(drain(stderr)).toBe("hello\nbye\n");
    expect(drain(stdout)).toBe("");
    redirect.restore();
  });

  it("calls the redirect's write callback once the line is written", async () => {
    const { stdout, stderr, asStdout } = streams();
    const redirect = redirectStdout(asStdout, stderr);
    await new Promise<void>((resolve, reject) => {
      redirect.write("line\n", (error) => (error ? reject(error) : resolve()));
    });
    expect(drain(stdout)).toBe("line\n");
    redirect.restore();
  });

  it("restore() puts the stream's own write back", () => {
    const { stdout, stderr, asStdout } = streams();
    const before = stdout.write;
    const redirect = redirectStdout(asStdout, stderr);
    expect(stdout.write).not.toBe(before);
    redirect.restore();
    expect(stdout.write).toBe(before);
    expect(Object.hasOwn(stdout, "write")).toBe(false);
    stdout.write("after\n");
    expect(drain(stdout)).toBe("after\n");
    expect(drain(stderr)).toBe("");
    redirect.restore();
    expect(stdout.write).toBe(before);
  });

  it("restore() puts back a write that was an own property", () => {
    const written: string[] = [];
    const own = (chunk: string) => {
      written.push(chunk);
      return true;
    };
    const fake = { write: own } as unknown as NodeJS.WriteStream;
    const stderr = new PassThrough();
    const redirect = redirectStdout(fake, stderr);
    fake.write("user\n");
    redirect.write("wire\n");
    expect(written).toEqual(["wire\n"]);
    expect(drain(stderr)).toBe("user\n");
    redirect.restore();
    expect(fake.write).toBe(own);
    fake.write("later\n");
    expect(written).toEqual(["wire\n", "later\n"]);
  });

  it("installed twice, both redirects write to the real stdout and user writes reach stderr once", () => {
    const { stdout, stderr, asStdout } = streams();
    const before = stdout.write;
    const first = redirectStdout(asStdout, stderr);
    const second = redirectStdout(asStdout, stderr);
    stdout.write("user\n");
    first.write("one\n");
    second.write("two\n");
    expect(drain(stdout)).toBe("one\ntwo\n");
    expect(drain(stderr)).toBe("user\n");
    second.restore();
    first.restore();
    expect(stdout.write).toBe(before);
    stdout.write("plain\n");
    expect(drain(stdout)).toBe("plain\n");
    expect(drain(stderr)).toBe("");
  });

  for (const order of ["last installed first", "first installed first"] as const) {
    it(`installed twice, stdout stays redirected until both are restored (${order})`, () => {
      const { stdout, stderr, asStdout } = streams();
      const before = stdout.write;
      const first = redirectStdout(asStdout, stderr);
      const second = redirectStdout(asStdout, stderr);
      const [early, late] = order === "last installed first" ? [second, first] : [first, second];
      early.restore();
      stdout.write("still redirected\n");
      late.write("wire\n");
      expect(drain(stderr)).toBe("still redirected\n");
      expect(drain(stdout)).toBe("wire\n");
      late.restore();
      expect(stdout.write).toBe(before);
      stdout.write("plain\n");
      expect(drain(stdout)).toBe("plain\n");
    });
  }

  it("writeThrough writes to the stream itself, redirected or not", async () => {
    const { stdout, stderr, asStdout } = streams();
    const write = writeThrough(stdout);
    write("before\n");
    const redirect = redirectStdout(asStdout, stderr);
    stdout.write("user\n");
    await new Promise<void>((resolve, reject) => {
      write("while redirected\n", (error) => (error ? reject(error) : resolve()));
    });
    redirect.restore();
    write("after\n");
    expect(drain(stdout)).toBe("before\nwhile redirected\nafter\n");
    expect(drain(stderr)).toBe("user\n");
  });
});
