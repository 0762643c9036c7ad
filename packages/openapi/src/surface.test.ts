import { surfaceSuite } from "../../../scripts/surface.test-util.js";

// Every export is a promise: a name joins or leaves the package only by changing these lists on purpose.
const VALUES = ["OpenApiError", "openApiServer", "openApiTools"];
const TYPES = [
  "CallOptions",
  "LoadedDocument",
  "Method",
  "OpenApiOptions",
  "OpenApiTools",
  "Operation",
  "OperationFilters",
  "OperationOverride",
  "Placement",
  "SchemaBounds",
  "Skipped",
];

surfaceSuite("@toolsmith/openapi", import.meta.url, { "index.ts": { values: VALUES, types: TYPES } });
