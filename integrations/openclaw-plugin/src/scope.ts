/** Per-agent isolation (`isolation: "agent"`): the scope an agent's recalls keep to, and the check that a scope the
 * agent asks for stays inside it. Alaya's recall takes scope rules any of which may match (alaya_engine/foundations/
 * scope.py); `agent=ID` keeps the agent's own sessions (captured under its OpenClaw agent id) and `shared` adds the
 * sessions Alaya shares: those config.json's share rules or a session's own `metadata.share` mark shared, and those
 * pulled from other machines. */

import { AlayaError } from "./alaya.js";

/** The agent's own sessions and the shared ones; "main" when the host names no agent, as capture stores it. */
export function agentScope(agentId: string | undefined): string[] {
  return [`agent=${literal(agentId || "main")}`, "shared"];
}

/** `request` kept to `scope` (undefined: not isolated). An agent may narrow its scope to some of these rules, never
 * widen it: any other rule is refused, where a silent replacement would answer a different question. */
export function withinScope(request: Record<string, unknown>, scope: string[] | undefined): Record<string, unknown> {
  if (!scope) return request;
  const asked = request.scope;
  if (asked === undefined || (Array.isArray(asked) && asked.length === 0)) return { ...request, scope };
  if (!Array.isArray(asked) || asked.some((rule) => typeof rule !== "string" || !scope.includes(rule))) {
    throw new AlayaError("scope_isolated", `this agent recalls only its own sessions and the shared ones; scope may ` +
      `name ${scope.join(" and ")} (or be left out)`);
  }
  return request;
}

/** An agent id as a shell pattern matching only itself (scope rules are patterns). */
function literal(name: string): string {
  return name.replace(/[[\]*?]/g, (char) => `[${char}]`);
}
