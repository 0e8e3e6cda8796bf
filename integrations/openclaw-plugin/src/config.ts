/** The plugin's settings (`plugins.entries.alaya-memory.config`), with their defaults filled in. OpenClaw
 * validates the raw object against the manifest's strict JSON Schema before the plugin loads. */

import os from "node:os";
import path from "node:path";

export interface PluginConfig {
  /** The Alaya store: `home`, else `$ALAYA_HOME`, else `~/.alaya` (as the `alaya` command resolves it). */
  home: string;
  /** The `alaya` executable; it starts the store's owner server when none runs. */
  alayaPath: string;
  autoRecall: boolean;
  autoRecallTokens: number;
  autoCapture: boolean;
  captureDistill: boolean;
  /** `agent`: each agent's memory_search, alaya_recall and auto-recall see only its own sessions and the shared
   * ones (per-agent isolation, see scope.ts); `none` (default): every agent sees the whole store. */
  isolation: "none" | "agent";
  /** How long a request may go without a word from the server (a working server says something every second). */
  timeoutMs: number;
}

export function resolveConfig(raw: Record<string, unknown> | undefined, env: NodeJS.ProcessEnv = process.env): PluginConfig {
  const value = raw ?? {};
  const text = (key: string): string | undefined => (typeof value[key] === "string" && value[key] ? (value[key] as string) : undefined);
  const flag = (key: string, fallback: boolean): boolean => (typeof value[key] === "boolean" ? (value[key] as boolean) : fallback);
  const number = (key: string, fallback: number): number => (typeof value[key] === "number" ? (value[key] as number) : fallback);
  return {
    home: path.resolve(expandHome(text("home") ?? env.ALAYA_HOME ?? "~/.alaya")),
    alayaPath: expandHome(text("alayaPath") ?? "alaya"),
    autoRecall: flag("autoRecall", false),
    autoRecallTokens: number("autoRecallTokens", 600),
    autoCapture: flag("autoCapture", true),
    captureDistill: flag("captureDistill", false),
    isolation: value.isolation === "agent" ? "agent" : "none",
    timeoutMs: number("timeoutSeconds", 30) * 1000,
  };
}

function expandHome(value: string): string {
  if (value === "~") return os.homedir();
  if (value.startsWith("~/")) return path.join(os.homedir(), value.slice(2));
  return value;
}
