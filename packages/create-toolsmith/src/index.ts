export { className, packageNameProblems, projectFromTarget } from "./names.js";
export {
  type CliArgs,
  DEFAULTS,
  DIALECTS,
  type Dialect,
  type ProjectOptions,
  parseCliArgs,
  RUNTIMES,
  type Runtime,
  TRANSPORTS,
  type Transport,
  UsageError,
} from "./options.js";
export {
  CheckoutError,
  LOCAL_PACKAGES_DIR,
  packLocal,
  publishablePackages,
  type WorkspacePackage,
} from "./pack-local.js";
export { type RunIo, run } from "./run.js";
export { renderProject, type ScaffoldOptions, scaffold, targetProblem } from "./scaffold.js";
export type { PackageSources } from "./template/package-json.js";
export { OTEL_VERSIONS, RUNTIME_VERSIONS, TOOLSMITH_VERSION, type ToolsmithPackage, VERSIONS } from "./versions.js";
