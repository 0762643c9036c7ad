export { type ToolsmithOptions, toolsmith } from "./plugin.js";
