/** alaya-memory: OpenClaw's memory slot served by Alaya. */

import { definePluginEntry, type OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { AlayaClient } from "./alaya.js";
import { Capturer, sessionDocument } from "./capture.js";
import { registerMemoryCli } from "./cli.js";
import { resolveConfig } from "./config.js";
import { recallBlock, recallQuery } from "./recall-context.js";
import type { RecallDocument } from "./results.js";
import { agentScope, withinScope } from "./scope.js";
import { memoryTools } from "./tools.js";

const AUTO_RECALL_RESULTS = 8;

export default definePluginEntry({
  id: "alaya-memory",
  name: "Alaya Memory",
  description: "Long-term memory from Alaya: knowledge cards distilled from earlier sessions, linked by typed relations.",
  register(api: OpenClawPluginApi) {
    const config = resolveConfig(api.pluginConfig);
    const alaya = new AlayaClient({ home: config.home, alayaPath: config.alayaPath, timeoutMs: config.timeoutMs });

    const scopeOf = (agentId?: string) => (config.isolation === "agent" ? agentScope(agentId) : undefined);
    // A factory per tool, as memory-core registers its own: OpenClaw makes each agent's tools with its context.
    for (const { name } of memoryTools(alaya)) {
      api.registerTool((ctx) => memoryTools(alaya, scopeOf(ctx.agentId)).find((tool) => tool.name === name),
        { names: [name] });
    }

    api.registerCli(({ program }) => registerMemoryCli(program, alaya), {
      descriptors: [{ name: "memory", description: "Search Alaya's memory, show its status, bring OpenClaw sessions in",
        hasSubcommands: true }],
    });

    if (config.autoRecall) {
      api.on("before_prompt_build", async (event, ctx) => {
        const text = recallQuery(event);
        if (!text) return undefined;
        try {
          const request = withinScope({ text, max_results: AUTO_RECALL_RESULTS }, scopeOf(ctx.agentId));
          const recall = await alaya.call<RecallDocument>("recall", { request });
          ctx.hookInvocation?.assertActive();
          const block = recallBlock(recall, config.autoRecallTokens);
          return block ? { prependContext: block } : undefined;
        } catch (error) {
          api.logger.warn(`alaya-memory: auto-recall failed: ${(error as Error).message}`);
          return undefined;
        }
      });
    }

    if (config.autoCapture) {
      const capturer = new Capturer(alaya, api.logger, config.captureDistill);
      api.on("agent_end", (event, ctx) => {
        const document = sessionDocument(event.messages, { sessionId: ctx.sessionId, agentId: ctx.agentId, channel: ctx.channel });
        if (document) capturer.capture(document);
        else api.logger.debug?.(`alaya-memory: nothing to store for session ${ctx.sessionId ?? "(no id)"}`);
      });
      api.on("gateway_stop", () => capturer.idle());
    }
  },
});
