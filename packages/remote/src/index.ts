export type { UntiedQuestions } from "./ask.js";
export type { RemoteBounds } from "./forward.js";
export { type Backoff, type RemoteEra, type RemoteTarget, RemoteUnavailable } from "./link.js";
export {
  createRemote,
  type Remote,
  type RemoteItemOptions,
  type RemoteOptions,
  type RemoteToolOptions,
} from "./remote.js";
