/**
 * Preloaded into a server (`node --import ./bench/heap-profile.mjs dist/server.js`, or through
 * `bench:compare --env-b NODE_OPTIONS=--import=$PWD/bench/heap-profile.mjs`), it samples every
 * allocation from start to exit, the objects either collector freed included, and writes the
 * profile to HEAP_PROFILE (a .heapprofile file; `bench/heap-self.mjs` reads it), "%p" in it replaced
 * by the process id: the bench's migrations and CLI commands get the same NODE_OPTIONS. Sampled bytes
 * do not depend on how busy the machine is, so two builds' allocations compare in any phase.
 */
import { Session } from "node:inspector";
import { writeFileSync } from "node:fs";

const file = process.env.HEAP_PROFILE;
if (!file) throw new Error("HEAP_PROFILE must name the file the heap profile is written to");
const session = new Session();
session.connect();
// An in-process session answers synchronously, so the profile can be taken in an exit handler.
session.post("HeapProfiler.startSampling", { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
process.on("exit", () => {
  session.post("HeapProfiler.stopSampling", (error, result) => {
    if (error) throw error;
    writeFileSync(file.replaceAll("%p", String(process.pid)), JSON.stringify(result.profile));
  });
});
