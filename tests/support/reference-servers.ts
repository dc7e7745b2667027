// The official MCP reference servers (devDependencies) as the app would run them: stdio configs for the app to
// spawn, and server-everything's streamable HTTP server started here on a free port (restartable on that port).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./app-server";

const dist = (pkg: string) => path.join(ROOT, "node_modules/@modelcontextprotocol", pkg, "dist/index.js");

export const everythingStdio = () => ({
  type: "stdio" as const,
  command: process.execPath,
  args: [dist("server-everything"), "stdio"],
});
/**
 * Stdio servers run in the sandbox as a uid of their own (issue 36): a directory they work in is bound writable,
 * and, as an admin would, made reachable for that uid (the directory itself open, the ones above passable).
 */
function shareWithServer(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o777);
  for (let up = path.dirname(dir); up !== path.dirname(up) && up.startsWith(os.tmpdir()); up = path.dirname(up)) {
    fs.chmodSync(up, fs.statSync(up).mode | 0o001);
  }
  return dir;
}
export const filesystemStdio = (dir: string) => ({
  type: "stdio" as const,
  command: process.execPath,
  args: [dist("server-filesystem"), dir],
  sandbox: { writablePaths: [shareWithServer(dir)] },
});
export const memoryStdio = (file: string) => ({
  type: "stdio" as const,
  command: process.execPath,
  args: [dist("server-memory")],
  env: { MEMORY_FILE_PATH: file },
  sandbox: { writablePaths: [shareWithServer(path.dirname(file))] },
});
/** Never answers initialize: the process lives, reads stdin and says nothing. */
export const hangingStdio = () => ({
  type: "stdio" as const,
  command: process.execPath,
  args: ["-e", "process.stdin.resume(); setInterval(() => {}, 1e6)"],
});
/** Exits at once with a message on stderr, like a server missing its API key. */
export const crashingStdio = () => ({
  type: "stdio" as const,
  command: process.execPath,
  args: ["-e", 'console.error("boom: missing API key"); process.exit(1)'],
});

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export type EverythingHttp = {
  url: string;
  port: number;
  child: ChildProcess;
  stop: () => Promise<void>;
  exited: Promise<unknown>;
};

/** server-everything over streamable HTTP (stateful: it hands out session ids). */
export async function startEverythingHttp(port?: number): Promise<EverythingHttp> {
  const usePort = port ?? (await freePort());
  const child = spawn(process.execPath, [dist("server-everything"), "streamableHttp"], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(usePort) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`listening on port ${usePort}`)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    void exited.then(() => reject(new Error(`server-everything exited: ${output}`)));
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };
  return { url: `http://127.0.0.1:${usePort}/mcp`, port: usePort, child, stop, exited };
}
