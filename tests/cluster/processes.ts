import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { waitForPort } from "../../src/server/testing/free-port";
import { PROJECT_NODE, ROOT, START_FLAGS } from "../../src/server/testing/server-process";

export interface ServerProcess {
  readonly port: number;
  readonly url: string;
  readonly pid: number;
  /** Everything the process wrote to stdout and stderr. */
  output(): string;
  /** Sends a signal and resolves to the exit code (or signal name) once the process is gone. */
  stop(signal: NodeJS.Signals): Promise<number | string>;
}

/**
 * Starts one compiled server (`serverJs`, from buildServerForTest) on 127.0.0.1:port the way
 * `npm start` does, and resolves once it answers its health check.
 */
export async function startServer(serverJs: string, port: number, env: Record<string, string>): Promise<ServerProcess> {
  const child: ChildProcess = spawn(PROJECT_NODE, [...START_FLAGS, serverJs], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")));
  const url = `http://127.0.0.1:${port}`;
  const started = await Promise.race([waitForHealth(url).then(() => true), exited.then(() => false)]);
  if (!started) throw new Error(`the server on port ${port} exited while starting:\n${output}`);
  return {
    port,
    url,
    pid: child.pid!,
    output: () => output,
    async stop(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

async function waitForHealth(url: string, timeoutMs = 90_000): Promise<void> {
  const port = Number(new URL(url).port);
  await waitForPort(port, timeoutMs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(`${url}/api/v1/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} is not healthy after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const NGINX = process.env.NGINX_PATH ?? "/usr/sbin/nginx";

export interface Nginx {
  url: string;
  /**
   * Takes servers out of rotation (or puts them back) with a reload. Resolves once new requests
   * follow the new configuration; `drained` once the old workers have finished their requests.
   */
  setDown(ports: number[]): Promise<{ drained: Promise<void> }>;
  stop(): Promise<void>;
}

/**
 * nginx in front of the servers, as an operator deploys it: round robin, a request retried on the
 * next server only when it could not be sent (nginx never resends a POST that reached a server),
 * no upstream keep-alive. A rolling restart takes each server out of rotation before stopping it:
 * a server that stops listening resets connections it had not yet accepted, and a POST sent on
 * one of those cannot be retried safely.
 */
export async function startNginx(dir: string, port: number, upstreamPorts: number[]): Promise<Nginx> {
  const configFile = path.join(dir, "nginx.conf");
  const writeConfig = (down: number[]) =>
    fs.writeFileSync(
      configFile,
      `
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream tollgate {
${upstreamPorts.map((p) => `    server 127.0.0.1:${p} max_fails=0${down.includes(p) ? " down" : ""};`).join("\n")}
  }
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 10m;
    location / {
      proxy_pass http://tollgate;
      proxy_http_version 1.1;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_next_upstream error timeout;
      proxy_read_timeout 150s;
    }
  }
}
`,
    );
  fs.mkdirSync(dir, { recursive: true });
  writeConfig([]);
  const child = spawn(NGINX, ["-p", dir, "-c", configFile, "-e", path.join(dir, "error.log")], { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const errorLog = () => fs.readFileSync(path.join(dir, "error.log"), "utf8");
  const failedToStart = exited.then(() => {
    throw new Error(`nginx exited: ${errorLog()}`);
  });
  failedToStart.catch(() => {}); // matters only while starting
  await Promise.race([waitForPort(port), failedToStart]);
  const workers = () =>
    fs
      .readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  const until = async (done: () => boolean, failure: string) => {
    const deadline = Date.now() + 60_000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`${failure}: ${errorLog()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const alive = (pid: number) => {
    try {
      return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    } catch {
      return false;
    }
  };
  return {
    url: `http://127.0.0.1:${port}`,
    async setDown(ports) {
      const old = workers();
      writeConfig(ports);
      child.kill("SIGHUP");
      await until(() => workers().some((pid) => !old.includes(pid)), "nginx started no worker with the new configuration");
      return { drained: until(() => !old.some(alive), "nginx's old workers did not finish their requests") };
    },
    async stop() {
      if (child.exitCode === null) child.kill("SIGQUIT");
      await exited;
    },
  };
}
