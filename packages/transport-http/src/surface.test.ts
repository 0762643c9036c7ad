import { surfaceSuite } from "../../../scripts/surface.test-util.js";

// Every export is a promise: a name joins or leaves the package only by changing these lists on purpose.
const WEB_VALUES = ["AuthError", "AuthUnavailable", "createHttpDispatcher", "createHttpHandler", "forwardedFor"];
const WEB_TYPES = [
  "AuthenticateHook",
  "AuthOptions",
  "ForwardedForOptions",
  "HttpDispatcher",
  "HttpHandler",
  "HttpOptions",
  "Incoming",
  "Outgoing",
  "ProtectionOptions",
  "RemoteAddress",
  "RouteHandler",
  "RouteInfo",
  "RouteOptions",
  "Routes",
];

surfaceSuite("@toolsmith/transport-http", import.meta.url, {
  // The web entry is the main one without the node:http door.
  "index.ts": {
    values: [...WEB_VALUES, "listen", "nodeListener"],
    types: [...WEB_TYPES, "HttpServer", "ListenOptions"],
  },
  "web.ts": { values: WEB_VALUES, types: WEB_TYPES },
});
