export { INSTRUMENTATION_NAME, type OpenTelemetryOptions, openTelemetry } from "./open-telemetry.js";
