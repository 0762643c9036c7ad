import type {
  Engine,
  EngineLifecycle,
  EventLog,
  KeyValueStore,
  RecordStore,
  RequestLeases,
  ServerBus,
  SessionChannel,
  SessionStore,
  TaskStore,
} from "./engine.js";

/** The role interfaces by name. */
export interface Roles {
  EngineLifecycle: EngineLifecycle;
  SessionStore: SessionStore;
  EventLog: EventLog;
  SessionChannel: SessionChannel;
  RequestLeases: RequestLeases;
  ServerBus: ServerBus;
  TaskStore: TaskStore;
  KeyValueStore: KeyValueStore;
  RecordStore: RecordStore;
}

export type RoleName = keyof Roles;

/** Each role's members, as its interface declares them (`exact` below fails to compile when one is missed). */
export const ROLE_MEMBERS = {
  EngineLifecycle: ["node", "shared", "start", "close", "onResume"],
  SessionStore: [
    "createSession",
    "loadSession",
    "changeSession",
    "deleteSession",
    "initializedSessions",
    "subscribers",
    "sessionIds",
  ],
  EventLog: ["append", "replay"],
  SessionChannel: ["signal", "follow", "takeClientLines", "takeCancels"],
  RequestLeases: ["running", "finished", "onOrphan"],
  ServerBus: ["broadcast", "onBroadcast", "handleOps"],
  TaskStore: [
    "createTask",
    "loadTask",
    "changeTask",
    "answerTask",
    "takeAnswers",
    "followTask",
    "taskRunning",
    "taskFinished",
    "onOrphanTask",
  ],
  KeyValueStore: ["setValue", "getValue", "takeValue", "deleteValue", "countUp"],
  RecordStore: ["readRecord", "writeRecord", "swapRecord", "deleteRecord", "listRecords", "clearRecords"],
} as const satisfies { [R in RoleName]: readonly (keyof Roles[R])[] };

type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Listed<R extends RoleName> = (typeof ROLE_MEMBERS)[R][number];

// Compiles only while each list is its interface's members exactly, and the lists together are Engine's.
const exact: { [R in RoleName]: Exact<Listed<R>, keyof Roles[R]> } & {
  Engine: Exact<Listed<RoleName>, keyof Engine>;
} = {
  EngineLifecycle: true,
  SessionStore: true,
  EventLog: true,
  SessionChannel: true,
  RequestLeases: true,
  ServerBus: true,
  TaskStore: true,
  KeyValueStore: true,
  RecordStore: true,
  Engine: true,
};
void exact;

// Members a server or transport calls at start whatever it serves, to listen: a partial engine answers them.
const LISTENERS = new Set<string>(["onOrphan", "onOrphanTask", "onBroadcast"]);

/**
 * `engine` as an engine that plays only `played` (and `EngineLifecycle`, which every engine plays): a member of
 * another role throws when called and is recorded in `refused`, except a listener's registration, which hears
 * nothing (what a partial engine does with a role it does not play).
 */
export function partialEngine(engine: Engine, played: readonly RoleName[]): { engine: Engine; refused: string[] } {
  const refused: string[] = [];
  const roles = new Set<RoleName>(["EngineLifecycle", ...played]);
  const partial: Record<string, unknown> = {};
  for (const [role, members] of Object.entries(ROLE_MEMBERS) as [RoleName, readonly string[]][]) {
    for (const member of members) {
      const own = (engine as unknown as Record<string, unknown>)[member];
      if (roles.has(role)) partial[member] = typeof own === "function" ? own.bind(engine) : own;
      else if (LISTENERS.has(member)) partial[member] = () => () => {};
      else {
        partial[member] = () => {
          refused.push(member);
          throw new Error(`this engine does not play ${role} (${member})`);
        };
      }
    }
  }
  return { engine: partial as unknown as Engine, refused };
}
