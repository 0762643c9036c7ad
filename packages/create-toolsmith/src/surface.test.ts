import { surfaceSuite } from "../../../scripts/surface.test-util.js";

// Every export is a promise: a name joins or leaves the package only by changing these lists on purpose.
const ENTRIES = {
  "index.ts": {
    values: [
      "CheckoutError",
      "DEFAULTS",
      "DIALECTS",
      "LOCAL_PACKAGES_DIR",
      "OTEL_VERSIONS",
      "RUNTIMES",
      "RUNTIME_VERSIONS",
      "TOOLSMITH_VERSION",
      "TRANSPORTS",
      "UsageError",
      "VERSIONS",
      "className",
      "packLocal",
      "packageNameProblems",
      "parseCliArgs",
      "projectFromTarget",
      "publishablePackages",
      "renderProject",
      "run",
      "scaffold",
      "targetProblem",
    ],
    types: [
      "CliArgs",
      "Dialect",
      "PackageSources",
      "ProjectOptions",
      "RunIo",
      "Runtime",
      "ScaffoldOptions",
      "ToolsmithPackage",
      "Transport",
      "WorkspacePackage",
    ],
  },
};

surfaceSuite("create-toolsmith", import.meta.url, ENTRIES);
