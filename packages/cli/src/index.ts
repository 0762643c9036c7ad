export { EXIT, type ExitCode } from "./exit-codes.js";
export { main } from "./main.js";
