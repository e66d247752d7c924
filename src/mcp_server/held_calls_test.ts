import assert from "node:assert/strict";
import type { InputResponses } from "@modelcontextprotocol/server";
import { RpcCode, RpcError } from "../protocol/json_rpc.ts";
import { ArgumentError } from "./code_mode_tools.ts";
import type { GatewayCall } from "./gateway_call.ts";
import { answerHeld, heldInputRequests, heldRunState } from "./held_calls.ts";

const pending = {
  id: "run1:1",
  runId: "run1",
  namespace: "danger",
  tool: "wipe",
  args: '{"what":"x"}',
  rule: 'rule "danger.wipe"',
  since: 0,
};

Deno.test("each held call is one elicitation keyed by its id, with an allow checkbox", () => {
  const requests = heldInputRequests([pending]);
  assert.deepEqual(Object.keys(requests), ["run1:1"]);
  const request = requests["run1:1"]!;
  assert.equal(request.method, "elicitation/create");
  assert.match(String(request.params.message), /danger\.wipe\(\{"what":"x"\}\) is held/);
});

Deno.test("answers allow on accept with allow=true, deny on accept without it or decline, and leave cancelled or missing ones held", async () => {
  const answered: unknown[] = [];
  const call: GatewayCall = (method, params) => {
    assert.equal(method, "approval.respond");
    answered.push(params);
    if (params.runId === "gone:1") {
      return Promise.reject(
        new RpcError(RpcCode.InvalidParams, 'No call of run "gone:1" is waiting for approval'),
      );
    }
    return Promise.resolve({});
  };
  const responses = {
    "a:1": { action: "accept", content: { allow: true } },
    "b:1": { action: "accept", content: { allow: false } },
    "c:1": { action: "decline" },
    "d:1": { action: "cancel" },
    "gone:1": { action: "accept", content: { allow: true } },
  } as InputResponses;
  const left = await answerHeld(call, ["a:1", "b:1", "c:1", "d:1", "e:1", "gone:1"], responses);
  assert.deepEqual(left, ["d:1", "e:1"]);
  assert.deepEqual(
    answered.map((a) => [(a as { runId: string }).runId, (a as { allow: boolean }).allow]),
    [
      ["a:1", true],
      ["b:1", false],
      ["c:1", false],
      ["gone:1", true],
    ],
  );
});

Deno.test("a retry's state must name a held run of the same tool", () => {
  assert.equal(heldRunState(undefined, "exec"), undefined);
  assert.deepEqual(heldRunState({ runId: "r", tool: "exec", held: ["r:1", 2] }, "exec"), {
    runId: "r",
    tool: "exec",
    held: ["r:1"],
  });
  assert.throws(
    () => heldRunState({ runId: "r", tool: "run_script", held: [] }, "exec"),
    (e) => e instanceof ArgumentError && /belongs to a call of "run_script"/.test(e.message),
  );
  assert.throws(() => heldRunState("raw", "exec"), ArgumentError);
});
