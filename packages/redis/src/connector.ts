import { createConnection, type Socket } from "node:net";
import { type ConnectionOptions, connect as connectTls, type TLSSocket } from "node:tls";
import { AbstractConnector } from "ioredis";

interface Options {
  readonly host?: string;
  readonly port?: number;
  readonly family?: number;
  readonly path?: string;
  readonly tls?: ConnectionOptions;
  readonly disconnectTimeout?: number;
}

/**
 * ioredis's own connector, but the socket keeps an error listener for its whole life: ioredis listens with `once`,
 * and a TLS socket can fail twice (a refused certificate, then the server's alert), which would crash the process.
 */
export class GuardedConnector extends AbstractConnector {
  readonly #options: Options;

  constructor(options: unknown) {
    const given = options as Options;
    super(given.disconnectTimeout ?? 2000);
    this.#options = given;
  }

  connect(): Promise<Socket | TLSSocket> {
    const { host, port, family, path, tls } = this.#options;
    this.connecting = true;
    return new Promise((resolve, reject) => {
      // A tick later, as ioredis's connector does: a disconnect in between stops it.
      process.nextTick(() => {
        if (!this.connecting) {
          reject(new Error("Connection is closed."));
          return;
        }
        try {
          const target = path ? { path } : { host, port: port ?? 6379, ...(family ? { family } : {}) };
          this.stream = tls ? connectTls({ ...target, ...tls }) : createConnection(target as { port: number });
        } catch (error) {
          reject(error);
          return;
        }
        this.stream.on("error", (error) => {
          this.firstError ??= error;
        });
        resolve(this.stream);
      });
    });
  }
}

/**
 * GuardedConnector whose socket sends what one turn of the event loop wrote in one write: a command's bytes wait in the
 * corked socket until the turn's I/O callbacks have run (setImmediate), then go out with the others in one syscall.
 * Each command is still sent, timed out and answered on its own, in the order it was written.
 */
export class BatchedConnector extends GuardedConnector {
  override connect(): Promise<Socket | TLSSocket> {
    return super.connect().then((socket) => {
      batchWrites(socket);
      return socket;
    });
  }
}

function batchWrites(socket: Socket): void {
  const write = socket.write;
  let corked = false;
  const flush = (): void => {
    corked = false;
    socket.uncork();
  };
  socket.write = function (this: Socket, ...args: Parameters<Socket["write"]>): boolean {
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(flush);
    }
    return Reflect.apply(write, this, args) as boolean;
  } as Socket["write"];
}
