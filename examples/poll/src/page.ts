import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

// The official App SDK's self-contained build (no imports), inlined: its closing `export { … }` becomes one global,
// since an inline module's exports cannot be imported by the page's own script.
function appSdk(): string {
  const path = fileURLToPath(import.meta.resolve("@modelcontextprotocol/ext-apps/app-with-deps"));
  const code = readFileSync(path, "utf8");
  const tail = /export\s*\{([^}]*)\};?\s*$/.exec(code);
  if (!tail?.[1]) throw new Error(`${path} no longer ends in one export list; update examples/poll/src/page.ts`);
  const names = tail[1].split(",").map((pair) => {
    const [local, exported] = pair.trim().split(/\s+as\s+/);
    return `${JSON.stringify(exported ?? local)}:${local}`;
  });
  return `${code.slice(0, tail.index)}globalThis.McpAppSdk={${names.join(",")}};`.replaceAll("</script", "<\\/script");
}

// The view: the poll as bars with a vote button each. It draws the tool result the host sends, and a vote is a
// tools/call the host proxies to the server (the `vote` tool, visible to the app only).
const VIEW = `
const { App, PostMessageTransport } = globalThis.McpAppSdk;
const app = new App({ name: "poll-view", version: "1.0.0" }, {});
const root = document.getElementById("poll");
function draw(poll) {
  if (!poll) return;
  const total = poll.options.reduce((sum, option) => sum + option.votes, 0);
  root.replaceChildren();
  const question = document.createElement("h1");
  question.textContent = poll.question;
  root.append(question);
  for (const option of poll.options) {
    const row = document.createElement("div");
    row.className = "row";
    row.dataset.option = option.label;
    const bar = document.createElement("span");
    bar.className = "bar";
    bar.style.width = (total === 0 ? 0 : Math.round((100 * option.votes) / total)) + "%";
    const label = document.createElement("span");
    label.className = "label";
    label.textContent = option.label + ": " + option.votes;
    const vote = document.createElement("button");
    vote.textContent = "Vote";
    vote.addEventListener("click", async () => {
      const result = await app.callServerTool({ name: "vote", arguments: { option: option.label } });
      draw(result.structuredContent);
    });
    row.append(label, bar, vote);
    root.append(row);
  }
  const sum = document.createElement("p");
  sum.id = "total";
  sum.textContent = total + " votes";
  root.append(sum);
}
app.ontoolresult = (result) => draw(result.structuredContent);
await app.connect(new PostMessageTransport(window.parent, window.parent));
`;

const STYLE = `
body { font: 14px system-ui, sans-serif; margin: 12px; }
.row { display: grid; grid-template-columns: 10em 1fr auto; gap: 8px; align-items: center; margin: 4px 0; }
.bar { display: block; height: 12px; background: #4a7; border-radius: 3px; min-width: 2px; }
`;

let page: string | undefined;

/** The app's HTML (made on first read, then kept): the SDK and the view inline, so it needs no network at all. */
export function pollPage(): string {
  page ??= [
    "<!doctype html>",
    '<html><head><meta charset="utf-8"><title>Poll</title>',
    `<style>${STYLE}</style></head>`,
    '<body><main id="poll">Waiting for the poll…</main>',
    `<script type="module">${appSdk()}</script>`,
    `<script type="module">${VIEW}</script>`,
    "</body></html>",
  ].join("\n");
  return page;
}
