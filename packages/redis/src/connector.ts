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
