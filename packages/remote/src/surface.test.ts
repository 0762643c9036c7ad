import { surfaceSuite } from "../../../scripts/surface.test-util.js";

// Every export is a promise: a name joins or leaves the package only by changing these lists on purpose.
const VALUES = ["RemoteUnavailable", "createRemote"];
const TYPES = [
  "Backoff",
  "Remote",
  "RemoteBounds",
  "RemoteEra",
  "RemoteItemOptions",
  "RemoteOptions",
  "RemoteTarget",
  "RemoteToolOptions",
  "UntiedQuestions",
];

surfaceSuite("@toolsmith/remote", import.meta.url, { "index.ts": { values: VALUES, types: TYPES } });
