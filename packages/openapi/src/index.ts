export type { CallOptions } from "./call.js";
export {
  type LoadedDocument,
  OpenApiError,
  type OperationFilters,
  type OperationOverride,
} from "./load.js";
export type { Method, Operation, Placement, Skipped } from "./operations.js";
export type { SchemaBounds } from "./schema.js";
export { type OpenApiOptions, type OpenApiTools, openApiServer, openApiTools } from "./tools.js";
