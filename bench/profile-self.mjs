/**
 * Where a V8 CPU profile's thread spent its busy time, by function: self time (the default) or
 * inclusive time (--inclusive), counted from the first sample whose stack names --from (a regular
 * expression over "function file:line"; "preRouting" skips a server's start-up), idle left out.
 *
 *   node bench/profile-self.mjs FILE.cpuprofile [--from preRouting] [--inclusive] [--top 40] [--match RE]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { from: { type: "string" }, inclusive: { type: "boolean", default: false }, top: { type: "string", default: "40" }, match: { type: "string" } },
});
if (positionals.length !== 1) {
  console.error("usage: node bench/profile-self.mjs FILE.cpuprofile [--from RE] [--inclusive] [--top N] [--match RE]");
  process.exit(2);
}
const profile = JSON.parse(readFileSync(positionals[0], "utf8"));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
const name = (node) => {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || "(anonymous)"} ${url.replace(/.*node_modules\//, "").replace(/.*\/dist\//, "dist/")}:${lineNumber + 1}`;
};
const stack = (id) => {
  const names = [];
  for (let at = id; at !== undefined; at = parents.get(at)) names.push(name(nodes.get(at)));
  return names;
};

const from = values.from === undefined ? null : new RegExp(values.from);
const times = new Map();
let started = from === null;
let busy = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  const micros = profile.timeDeltas[i] ?? 0;
  const names = stack(id);
  if (!started) started = names.some((n) => from.test(n));
  if (!started || nodes.get(id).callFrame.functionName === "(idle)") continue;
  busy += micros;
  for (const n of values.inclusive ? new Set(names) : [names[0]]) times.set(n, (times.get(n) ?? 0) + micros);
}

const match = values.match === undefined ? null : new RegExp(values.match);
console.log(`busy ${(busy / 1000).toFixed(0)} ms${from ? ` from the first ${values.from}` : ""}, ${values.inclusive ? "inclusive" : "self"} time:`);
for (const [n, micros] of [...times].filter(([n]) => !match || match.test(n)).sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  console.log(`${((100 * micros) / busy).toFixed(2).padStart(6)}%  ${(micros / 1000).toFixed(0).padStart(6)} ms  ${n}`);
}
