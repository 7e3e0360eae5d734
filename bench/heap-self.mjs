/**
 * Where a sampling heap profile's bytes were allocated, by function (self, the default, or
 * inclusive with --inclusive), with a per-call figure when --calls says how many calls the
 * profile covers.
 *
 *   node bench/heap-self.mjs FILE.heapprofile [--calls N] [--inclusive] [--top 40] [--match RE]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { calls: { type: "string" }, inclusive: { type: "boolean", default: false }, top: { type: "string", default: "40" }, match: { type: "string" } },
});
if (positionals.length !== 1) {
  console.error("usage: node bench/heap-self.mjs FILE.heapprofile [--calls N] [--inclusive] [--top N] [--match RE]");
  process.exit(2);
}
const { head } = JSON.parse(readFileSync(positionals[0], "utf8"));
const name = ({ functionName, url, lineNumber }) =>
  `${functionName || "(anonymous)"} ${url.replace(/.*node_modules\//, "").replace(/.*\/dist\//, "dist/")}:${lineNumber + 1}`;
const bytes = new Map();
let total = 0;
const walk = (node, above) => {
  const self = node.selfSize;
  total += self;
  const here = name(node.callFrame);
  const names = values.inclusive ? new Set([...above, here]) : [here];
  if (self > 0) for (const n of names) bytes.set(n, (bytes.get(n) ?? 0) + self);
  for (const child of node.children) walk(child, values.inclusive ? names : []);
};
walk(head, []);
const calls = values.calls === undefined ? null : Number(values.calls);
const perCall = (b) => (calls ? `${(b / calls).toFixed(0).padStart(7)} B/call` : "");
console.log(`${(total / 1e6).toFixed(1)} MB sampled${calls ? `, ${(total / calls / 1024).toFixed(1)} KB a call over ${calls} calls` : ""}; ${values.inclusive ? "inclusive" : "self"}:`);
const match = values.match === undefined ? null : new RegExp(values.match);
for (const [n, b] of [...bytes].filter(([n]) => !match || match.test(n)).sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  console.log(`${((100 * b) / total).toFixed(2).padStart(6)}%  ${(b / 1e6).toFixed(2).padStart(8)} MB ${perCall(b)}  ${n}`);
}
