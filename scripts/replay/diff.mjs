// Two rendered transcripts side by side: which exchanges are the same, and the lines of those that are not.

const SHOWN = 240;

// Both lines cut to what shows where they part (long lines differ deep inside).
function aroundDifference(a, b) {
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  const from = Math.max(0, at - 80);
  const cut = (line) =>
    `${from > 0 ? "…" : ""}${line.slice(from, from + SHOWN)}${line.length > from + SHOWN ? "…" : ""}`;
  return [cut(a), cut(b)];
}

// The edit script between two line lists (longest common subsequence): [" " | "-" | "+", line][].
function lineDiff(before, after) {
  const n = before.length;
  const m = after.length;
  const table = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i][j] = before[i] === after[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] === after[j]) {
      out.push([" ", before[i++]]);
      j++;
    } else if (i < n && (j === m || table[i + 1][j] >= table[i][j + 1])) out.push(["-", before[i++]]);
    else out.push(["+", after[j++]]);
  }
  return out;
}

function show(edits) {
  const lines = [];
  for (let k = 0; k < edits.length; k++) {
    const [mark, line] = edits[k];
    const next = edits[k + 1];
    if (mark === "-" && next?.[0] === "+") {
      const [a, b] = aroundDifference(line, next[1]);
      lines.push(`    - ${a}`, `    + ${b}`);
      k++;
    } else if (mark === " ") lines.push(`      ${line.length > SHOWN ? `${line.slice(0, SHOWN)}…` : line}`);
    else lines.push(`    ${mark} ${line.length > SHOWN ? `${line.slice(0, SHOWN)}…` : line}`);
  }
  return lines;
}

/**
 * Compare two sides (sessions of { name, exchanges: { label, lines }[] }): counts and a report of each difference.
 */
export function compare(before, after) {
  const report = [];
  let compared = 0;
  let identical = 0;
  const names = [...new Set([...before.map((s) => s.name), ...after.map((s) => s.name)])];
  for (const name of names) {
    const a = before.find((s) => s.name === name)?.exchanges ?? [];
    const b = after.find((s) => s.name === name)?.exchanges ?? [];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      compared++;
      const x = a[i];
      const y = b[i];
      const same = x && y && x.label === y.label && x.lines.join("\n") === y.lines.join("\n");
      if (same) {
        identical++;
        continue;
      }
      report.push(
        `✗ ${name} › ${i + 1}. ${x?.label ?? "(none before)"}${y && y.label !== x?.label ? ` | after: ${y.label}` : ""}`,
      );
      report.push(...show(lineDiff(x?.lines ?? [], y?.lines ?? [])), "");
    }
  }
  return { compared, identical, different: compared - identical, report };
}
