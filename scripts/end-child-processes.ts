import { afterAll } from "vitest";
import { endTracked } from "./child-processes.js";

// What a test file started and did not end (a failure halfway, a forgotten kill) ends with the file.
afterAll(() => endTracked());
