import type { RouteHandler, Routes } from "@toolsmith/transport-http";

/** One request the OAuth proxy's routes were sent: its route (`POST /token`) and, for a form, its `grant_type`. */
export interface Seen {
  readonly route: string;
  readonly grantType: string | undefined;
}

/**
 * The proxy's routes, each telling `seen` of every request it is sent before it answers it: what the client and
 * the browser did, as the server saw it (a refresh is a `POST /token` with `grant_type=refresh_token`).
 */
export function observedRoutes(routes: Routes, seen: (request: Seen) => void): Routes {
  const observed: Record<string, Routes[string]> = {};
  for (const [route, entry] of Object.entries(routes)) {
    const handler: RouteHandler = typeof entry === "function" ? entry : entry.handler;
    const watching: RouteHandler = async (request, info) => {
      const form = route.startsWith("POST ") ? new URLSearchParams(await request.clone().text()) : undefined;
      seen({ route, grantType: form?.get("grant_type") ?? undefined });
      return handler(request, info);
    };
    observed[route] = typeof entry === "function" ? watching : { ...entry, handler: watching };
  }
  return observed;
}

/** Resolves with the first request `seen` (see `observedRoutes`) that `matches`, from now on. */
export class RouteWatch {
  readonly all: Seen[] = [];
  #waiting: { matches: (seen: Seen) => boolean; resolve: (seen: Seen) => void }[] = [];

  readonly see = (seen: Seen): void => {
    this.all.push(seen);
    for (const waiter of this.#waiting.filter((w) => w.matches(seen))) {
      this.#waiting = this.#waiting.filter((w) => w !== waiter);
      waiter.resolve(seen);
    }
  };

  next(matches: (seen: Seen) => boolean): Promise<Seen> {
    return new Promise((resolve) => this.#waiting.push({ matches, resolve }));
  }

  /** How many requests so far were sent to `route` (with `grantType`, when given). */
  count(route: string, grantType?: string): number {
    return this.all.filter((seen) => seen.route === route && (grantType === undefined || seen.grantType === grantType))
      .length;
  }
}
