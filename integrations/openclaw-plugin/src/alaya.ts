/** Talking to Alaya: the store's owner server over its Unix socket (NDJSON, one request per connection, the same
 * documents `alaya … --json` prints), and the `alaya` command for what only it does (start or restart the server,
 * `sync openclaw`). See alaya_engine/server/protocol.py and alaya_engine/foundations/socket_address.py for the wire format and the socket. */

import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const PROTOCOL_VERSION = 1;
const MAX_SOCKET_PATH = 100;
const CONNECT_TIMEOUT_MS = 5_000;
/** Starting a server loads the model and the resident vectors; the CLI itself gives up after server.start_timeout. */
const START_TIMEOUT_MS = 120_000;

/** An error Alaya reported (`{"error": {"code", "message"}}`), or one met on the way to it. */
export class AlayaError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(`Alaya ${code}: ${message}`);
    this.name = "AlayaError";
    this.code = code;
  }
}

/** Where the owner server of the store at `home` listens: `<home>/alaya.sock`, or a short path under
 * `/tmp/alaya-<uid>/` when that one would pass the Unix socket limit (the rule of alaya_engine/foundations/socket_address.py). */
export function socketPath(home: string): string {
  let real: string;
  try {
    real = realpathSync(home);
  } catch {
    real = path.resolve(home);
  }
  const beside = path.join(real, "alaya.sock");
  if (Buffer.byteLength(beside) <= MAX_SOCKET_PATH) return beside;
  const digest = createHash("sha256").update(real).digest("hex").slice(0, 24);
  return path.join(`/tmp/alaya-${os.userInfo().uid}`, `${digest}.sock`);
}

export interface AlayaOptions {
  home: string;
  alayaPath: string;
  /** Silence allowed on a request before giving up (a working server sends a heartbeat every second). */
  timeoutMs: number;
}

interface Reply {
  result?: unknown;
  error?: { code: string; message: string };
  working?: boolean;
  progress?: [number, number];
}

export class AlayaClient {
  readonly socket: string;
  private version?: Promise<string>;

  constructor(readonly options: AlayaOptions) {
    this.socket = socketPath(options.home);
  }

  /** One engine method through the owner server. A missing server is started (and a server of another Alaya
   * version restarted) through the `alaya` command, then the request is sent once more. A version mismatch first
   * reads the installed version again: the gateway outlives upgrades, so the version read at the first call may be
   * the stale one, and restarting the server would not help (every call failed until the gateway restarted). */
  async call<T = any>(method: string, params: Record<string, unknown>): Promise<T> {
    let clientVersion = await this.alayaVersion();
    let rechecked = false;
    let started = false;
    for (;;) {
      try {
        return (await this.send(method, params, clientVersion)) as T;
      } catch (error) {
        const mismatch = error instanceof AlayaError && error.code === "version_mismatch";
        if (mismatch && !rechecked) {
          rechecked = true;
          this.version = undefined;
          const installed = await this.alayaVersion();
          if (installed !== clientVersion) {
            clientVersion = installed;
            continue;
          }
        }
        if (started) {
          if (error instanceof ServerAbsent) {
            throw new AlayaError("server_unreachable", `no Alaya server answers on ${this.socket} for ${this.options.home}, ` +
              `even after starting one; see ${path.join(this.options.home, "logs", "server.log")}`);
          }
          throw error;
        }
        started = true;
        if (error instanceof ServerAbsent || (error instanceof AlayaError && error.code === "server_stopping")) {
          await this.cli(["serve"], { timeoutMs: START_TIMEOUT_MS, json: false });
        } else if (mismatch) {
          await this.cli(["server", "restart"], { timeoutMs: START_TIMEOUT_MS });
        } else {
          throw error;
        }
      }
    }
  }

  /** The installed Alaya's version, which every request carries (the server refuses other versions); read once,
   * and again after a mismatch. */
  alayaVersion(): Promise<string> {
    this.version ??= this.cli(["version"], { timeoutMs: 60_000 }).then((document) => String(document.version));
    this.version.catch(() => (this.version = undefined));
    return this.version;
  }

  /** Run `alaya --home HOME ARGS [--json]` and return its JSON document (also one that reports a partial failure
   * with a non-zero exit code: a report with its `error` beside it); a document that is only `{"error"}`, a failure
   * without a document or a time-out becomes an AlayaError. */
  cli(args: string[], options: { timeoutMs: number; json?: boolean; env?: NodeJS.ProcessEnv }): Promise<any> {
    const json = options.json ?? true;
    const argv = ["--home", this.options.home, ...args, ...(json ? ["--json"] : [])];
    return new Promise((resolve, reject) => {
      execFile(this.options.alayaPath, argv, { timeout: options.timeoutMs, maxBuffer: 256 << 20, env: options.env ?? process.env },
        (error, stdout, stderr) => {
          const command = `alaya ${args.join(" ")}`;
          if (error && (error as NodeJS.ErrnoException).code === "ENOENT") {
            reject(new AlayaError("alaya_not_found", `cannot run '${this.options.alayaPath}': no such command; install Alaya ` +
              "(pip install alaya) or set plugins.entries.alaya-memory.config.alayaPath"));
            return;
          }
          if (error && error.killed) {
            reject(new AlayaError("timeout", `${command} did not finish within ${options.timeoutMs / 1000} s`));
            return;
          }
          const document = json ? parseDocument(stdout) : undefined;
          if (document?.error && Object.keys(document).length === 1) {
            reject(new AlayaError(document.error.code, document.error.message));
          } else if (document !== undefined) {
            resolve(document); // a report of partial success (e.g. sync's refused transcripts, exit code 2) included
          } else if (error) {
            const said = (stderr || stdout).trim().split("\n").pop() ?? "";
            reject(new AlayaError("command_failed", `${command} exited with code ${error.code}${said ? `: ${said}` : ""}`));
          } else if (json) {
            reject(new AlayaError("bad_output", `${command} printed no JSON document`));
          } else {
            resolve(stdout);
          }
        });
    });
  }

  private send(method: string, params: Record<string, unknown>, clientVersion: string): Promise<unknown> {
    const line = JSON.stringify({ v: PROTOCOL_VERSION, id: 1, method, params, client_version: clientVersion }) + "\n";
    const { timeoutMs } = this.options;
    return new Promise((resolve, reject) => {
      const connection = net.createConnection(this.socket);
      let pending = "";
      let settled = false;
      let timer = setTimeout(() => finish(new AlayaError("server_unresponsive", `the server for ${this.options.home} ` +
        `accepted no connection within ${CONNECT_TIMEOUT_MS / 1000} s; run: alaya server restart`)), CONNECT_TIMEOUT_MS);
      const finish = (error: Error | null, value?: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        connection.destroy();
        if (error) reject(error);
        else resolve(value);
      };
      const rearm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => finish(new AlayaError("server_unresponsive", `the server for ${this.options.home} sent ` +
          `nothing for ${timeoutMs / 1000} s (stopped or stuck); run: alaya server restart`)), timeoutMs);
      };
      connection.setEncoding("utf8");
      connection.on("connect", () => {
        rearm();
        connection.write(line);
      });
      connection.on("data", (chunk: string) => {
        rearm();
        pending += chunk;
        let end: number;
        while (!settled && (end = pending.indexOf("\n")) >= 0) {
          const text = pending.slice(0, end);
          pending = pending.slice(end + 1);
          let reply: Reply;
          try {
            reply = JSON.parse(text) as Reply;
          } catch {
            finish(new AlayaError("bad_reply", `the server for ${this.options.home} sent a line that is not JSON`));
            return;
          }
          if (reply.working || reply.progress) continue;
          if (reply.error) finish(new AlayaError(reply.error.code, reply.error.message));
          else finish(null, reply.result);
        }
      });
      connection.on("error", (error: NodeJS.ErrnoException) => {
        finish(error.code === "ENOENT" || error.code === "ECONNREFUSED" ? new ServerAbsent() :
          new AlayaError("io_error", `talking to the server for ${this.options.home}: ${error.message}`));
      });
      connection.on("close", () => finish(new AlayaError("server_gone", `the server for ${this.options.home} closed ` +
        "the connection mid-request; see logs/server.log in the store")));
    });
  }
}

/** No server listens on the socket (none started yet, or it stopped when idle). */
class ServerAbsent extends Error {}

function parseDocument(stdout: string): any {
  const text = stdout.trim();
  if (!text.startsWith("{")) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
