// The client when Alaya is upgraded under a running gateway: the version it read at its first call is stale.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { ALAYA, storeHome } from "./helpers.mjs";
import { AlayaClient } from "../dist/alaya.js";

test("a version mismatch after an upgrade reads the version again and never restarts the server", async (t) => {
  const folder = mkdtempSync(path.join(os.tmpdir(), "alaya-upgrade-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const commands = path.join(folder, "commands");
  const upgraded = path.join(folder, "upgraded");
  const alayaPath = path.join(folder, "alaya");
  // The `alaya` command of an older Alaya for its first `alaya version`, the installed one from then on.
  writeFileSync(alayaPath, `#!/bin/sh
echo "$3" >> '${commands}'
if [ "$3" = version ] && [ ! -e '${upgraded}' ]; then : > '${upgraded}'; echo '{"version": "0.0.1"}'; exit 0; fi
exec '${ALAYA}' "$@"
`);
  chmodSync(alayaPath, 0o755);
  const client = new AlayaClient({ home: storeHome(), alayaPath, timeoutMs: 60_000 });
  const ran = () => readFileSync(commands, "utf8").trim().split("\n");

  assert.ok((await client.call("status", {})).l2.cards > 0);
  assert.equal(ran().filter((command) => command === "version").length, 2, ran().join(", "));
  assert.ok(!ran().includes("server"), `the server was restarted: ${ran().join(", ")}`);
  const before = ran().length;
  await client.call("status", {});
  assert.equal(ran().length, before, "the version read again is kept");
});
