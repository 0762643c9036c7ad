import type { Client } from "@modelcontextprotocol/client";
import type { Colors } from "./colors.js";
import { argumentsOf } from "./schema-summary.js";

/** Everything a server offers, as the official client lists it. */
export async function listAll(client: Client) {
  const caps = client.getServerCapabilities() ?? {};
  const bypass = { cacheMode: "bypass" } as const;
  const tools = caps.tools ? (await client.listTools(undefined, bypass)).tools : [];
  const resources = caps.resources ? (await client.listResources(undefined, bypass)).resources : [];
  const resourceTemplates = caps.resources
    ? (await client.listResourceTemplates(undefined, bypass)).resourceTemplates
    : [];
  const prompts = caps.prompts ? (await client.listPrompts(undefined, bypass)).prompts : [];
  return { tools, resources, resourceTemplates, prompts };
}

export type Listing = Awaited<ReturnType<typeof listAll>>;

/** The server line: name, version, the revision spoken and its era. */
export function serverLine(client: Client, where: string, c: Colors): string {
  const info = client.getServerVersion();
  const version = client.getNegotiatedProtocolVersion() ?? "?";
  const era = client.getProtocolEra() === "modern" ? "stateless era" : "handshake era";
  return `${c.bold(info?.name ?? "server")} ${info?.version ?? ""} ${c.dim(`· ${version} (${era}) · ${where}`)}`;
}

function heading(title: string, count: number, c: Colors): string {
  return `\n${c.bold(title)} ${c.dim(`(${count})`)}`;
}

/** The listing for people: each tool with its description and arguments, then resources, templates, prompts. */
export function formatListing(listing: Listing, c: Colors): string {
  const out: string[] = [];
  out.push(heading("Tools", listing.tools.length, c));
  for (const tool of listing.tools) {
    out.push(`  ${c.cyan(tool.name)}${tool.title ? ` ${c.dim(`(${tool.title})`)}` : ""}`);
    if (tool.description) out.push(`      ${tool.description}`);
    const args = argumentsOf(tool.inputSchema);
    if (args.length === 0) out.push(`      ${c.dim("no arguments")}`);
    for (const arg of args) {
      const flag = arg.required ? "" : "?";
      const fallback = arg.default !== undefined ? c.dim(` = ${JSON.stringify(arg.default)}`) : "";
      const about = arg.description ? c.dim(`  ${arg.description}`) : "";
      out.push(`      ${arg.name}${flag}: ${c.yellow(arg.type)}${fallback}${about}`);
    }
  }
  if (listing.resources.length > 0) {
    out.push(heading("Resources", listing.resources.length, c));
    for (const r of listing.resources) {
      const about = [r.mimeType, r.description].filter(Boolean).join(" · ");
      out.push(
        `  ${c.cyan(r.uri)}${r.name && r.name !== r.uri ? ` ${r.name}` : ""}${about ? c.dim(`  ${about}`) : ""}`,
      );
    }
  }
  if (listing.resourceTemplates.length > 0) {
    out.push(heading("Resource templates", listing.resourceTemplates.length, c));
    for (const t of listing.resourceTemplates) {
      out.push(`  ${c.cyan(t.uriTemplate)}${t.description ? c.dim(`  ${t.description}`) : ""}`);
    }
  }
  if (listing.prompts.length > 0) {
    out.push(heading("Prompts", listing.prompts.length, c));
    for (const p of listing.prompts) {
      out.push(`  ${c.cyan(p.name)}${p.description ? `  ${p.description}` : ""}`);
      for (const arg of p.arguments ?? []) {
        const about = arg.description ? c.dim(`  ${arg.description}`) : "";
        out.push(`      ${arg.name}${arg.required ? "" : "?"}: ${c.yellow("string")}${about}`);
      }
    }
  }
  return `${out.join("\n")}\n`;
}
