// A program that imports the transport but then decides not to serve stdio: after releaseStdout(), stdout is its own.
import { releaseStdout } from "../dist/index.js";

console.log("redirected");
releaseStdout();
console.log("released");
