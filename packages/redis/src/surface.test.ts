import { surfaceSuite } from "../../../scripts/surface.test-util.js";

// Every export is a promise: a name joins or leaves the package only by changing these lists on purpose.
const ENTRIES = {
  "index.ts": { values: ["createRedisEngine"], types: ["RedisEngineOptions"] },
  "testing/index.ts": { values: ["startRedis"], types: ["RedisServer", "StartRedisOptions"] },
};

surfaceSuite("@toolsmith/redis", import.meta.url, ENTRIES);
