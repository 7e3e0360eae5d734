import fs from "node:fs";

/** Linux counts a process's CPU time in clock ticks of 10 ms (USER_HZ 100). */
const MICROS_PER_TICK = 10_000;

function ticksOf(stat: string): number {
  const fields = stat.split(") ")[1]!.split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** CPU time a process (all its threads) has used, in µs: utime + stime of /proc/PID/stat. */
export function processCpuMicros(pid: number): number {
  return ticksOf(fs.readFileSync(`/proc/${pid}/stat`, "utf8")) * MICROS_PER_TICK;
}

/**
 * CPU time of every PostgreSQL process on this machine, in µs: the backends that run the charges,
 * and the WAL writer and checkpointer they keep busy.
 */
export function postgresCpuMicros(): number {
  let ticks = 0;
  for (const pid of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      if (/^\d+ \((postgres|postmaster)\)/.test(stat)) ticks += ticksOf(stat);
    } catch {
      // The process ended while the list was read: its time is gone with it.
    }
  }
  return ticks * MICROS_PER_TICK;
}
