import { surfaceSuite } from "../../../scripts/surface.test-util.js";

// Every export is a promise: a name joins or leaves the package only by changing these lists on purpose.
const VALUES = ["OpenApiError", "callerToken", "openApiServer", "openApiTools"];
const TYPES = [
  "Body",
  "BodyKind",
  "CallOptions",
  "Credential",
  "CredentialSource",
  "LoadedDocument",
  "Method",
  "OpenApiOptions",
  "OpenApiTools",
  "Operation",
  "OperationFilters",
  "OperationOverride",
  "Placement",
  "Scheme",
  "SchemaBounds",
  "SecurityRequirement",
  "ServerObject",
  "ServerOptions",
  "Skipped",
  "Style",
];

surfaceSuite("@toolsmith/openapi", import.meta.url, { "index.ts": { values: VALUES, types: TYPES } });
