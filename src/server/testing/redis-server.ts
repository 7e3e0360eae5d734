import { spawn, type ChildProcess } from "node:child_process";
import { freePort, waitForPort } from "./free-port";

export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (it may be started again with start()). */
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * A redis-server of the test's own on a free port of 127.0.0.1, in memory only: a test may stop
 * it to see what happens without Redis (scripts/ensure-test-tools.sh installs it).
 */
export async function startTestRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
    await waitForPort(port);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise((resolve) => {
      running.once("exit", resolve);
      running.kill("SIGKILL");
    });
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, start, stop };
}
