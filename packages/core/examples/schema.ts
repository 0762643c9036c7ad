// The @example blocks of core's schema/ layer: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs. parseUriTemplate and compileSchema are core's own, not exported.
import { registerSchemaAdapter, type SchemaAdapter, type Server } from "@toolsmith/core";
import { type FromJsonSchema, jsonSchema } from "@toolsmith/core/json-schema";
import { z } from "zod";
import { compileSchema } from "../src/schema/adapters.js";
import { parseUriTemplate } from "../src/schema/uri-template.js";

//#region FromJsonSchema
type City = FromJsonSchema<{ type: "object"; properties: { city: { type: "string" } }; required: ["city"] }>;
// { city: string }
//#endregion FromJsonSchema
export const city: Required<City> extends City ? City : never = { city: "Lisbon" };

export function noteId(): void {
  //#region UriTemplate
  parseUriTemplate("notes://{id}").match("notes://42"); // { id: "42" }
  //#endregion UriTemplate
}

export function fileAndRevision(): void {
  //#region parseUriTemplate
  const t = parseUriTemplate("files://{+path}{?rev}");
  t.match("files://a/b.txt?rev=3"); // { path: "a/b.txt", rev: "3" }
  //#endregion parseUriTemplate
}

export function teach(myAdapter: SchemaAdapter): void {
  //#region registerSchemaAdapter
  registerSchemaAdapter(myAdapter);
  //#endregion registerSchemaAdapter
}

export function compileOnce() {
  //#region compileSchema
  const compiled = compileSchema(z.object({ a: z.string() }), "input", "tool 'x' input");
  //#endregion compileSchema
  return compiled;
}

export function weather(server: Server): void {
  //#region jsonSchema
  const input = jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
  server.tool({ name: "weather", description: "Weather", input, handler: ({ city }) => `Sunny in ${city}` });
  //#endregion jsonSchema
}
