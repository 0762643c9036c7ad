import { McpServer, tool } from "@toolsmith/decorators";
import { z } from "zod";

const input = { text: z.string() };

function isUpper(ch: string): boolean {
  return ch !== ch.toLowerCase() && ch === ch.toUpperCase();
}

/** The two-tool server of the seed "What MCP is", written as a class. Tool names are the method names. */
export class WordTools extends McpServer {
  name = "word-tools";
  version = "0.1.0";

  @tool({ description: "Count whitespace-separated words.", input })
  word_count({ text }: { text: string }) {
    if (text === "") throw new Error("text must not be empty");
    return text.split(/\s+/).filter((word) => word !== "").length;
  }

  @tool({ description: "Rewrite CamelCase as snake_case.", input })
  snake_case({ text }: { text: string }) {
    if (text === "") throw new Error("text must not be empty");
    let out = "";
    let index = 0;
    for (const ch of text) {
      if (isUpper(ch) && index > 0) out += "_";
      out += ch.toLowerCase();
      index++;
    }
    return out;
  }
}
