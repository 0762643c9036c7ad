// The patterns of a library's own keywords that RE2 cannot run (lookarounds), left to the library as zod's formats
// are: each library keeps its own safe. ArkType's, by keyword; pattern-precheck.test.ts checks them against ArkType's.

/** ArkType's keyword patterns (`string.integer`, `string.numeric`, `string.date.iso`) with lookarounds. */
export const ARKTYPE_PATTERNS: ReadonlySet<string> = new Set([
  // string.integer
  "^(?:(?!^-0$)-?(?:(?:0|[1-9]\\d*)))$",
  // string.numeric
  "^(?:(?!^-0\\.?0*$)(?:-?(?:(?:0|[1-9]\\d*)(?:\\.\\d+)?)|\\.\\d+?))$",
  // string.date.iso
  "^([+-]?\\d{4}(?!\\d{2}\\b))((-?)((0[1-9]|1[0-2])(\\3([12]\\d|0[1-9]|3[01]))?|W([0-4]\\d|5[0-3])(-?[1-7])?|(00[1-9]|0[1-9]\\d|[12]\\d{2}|3([0-5]\\d|6[1-6])))(T((([01]\\d|2[0-3])((:?)[0-5]\\d)?|24:?00)([,.]\\d+(?!:))?)?(\\17[0-5]\\d([,.]\\d+)?)?([Zz]|([+-])([01]\\d|2[0-3]):?([0-5]\\d)?)?)?)?$",
]);
