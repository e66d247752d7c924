/**
 * GitHub's real REST API document (from `@octokit/openapi`) as an `apis` namespace, served by
 * Prism as a validating mock, driven from the CLI as a user would: typed calls, type errors,
 * discovery, notes on what was left out, and the `ask` default for calls that change things.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { parseConfigText } from "../src/config/config_text.ts";
import type { RunDocument, RunningDocument } from "../src/protocol/run_document.ts";
import { REPO, withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";
import { GITHUB_SPEC, startPrism } from "./support/prism_server.ts";

async function pendingFor(gw: { cli(args: string[]): Promise<{ stdout: string }> }, runId: string) {
  return await pollUntil(`run ${runId} to wait for approval`, async () => {
    const listed = JSON.parse((await gw.cli(["approvals", "--json"])).stdout) as {
      pending: { runId: string; namespace: string; tool: string; rule: string }[];
    };
    const held = listed.pending.filter((p) => p.runId === runId);
    return held.length > 0 ? held : undefined;
  }, { timeoutMs: 60_000 });
}

/** The code block after `<!-- marker -->` in the README. */
async function readmeBlock(marker: string): Promise<string> {
  const readme = await Deno.readTextFile(join(REPO, "README.md"));
  const match = new RegExp(`<!-- ${marker} -->\\s*\`\`\`\\w+\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match) throw new Error(`README has no block after <!-- ${marker} -->`);
  return match[1]!;
}

Deno.test("the README's apis example is a valid configuration with the documented defaults", async () => {
  const text = await readmeBlock("readme-apis-config");
  const loaded = parseConfigText(text, { file: "README.md", env: { GITHUB_TOKEN: "t" } });
  assert.deepEqual(Object.keys(loaded.config.apis), ["github", "petstore", "library"]);
  assert.equal(loaded.config.apis.github?.writes, "ask");
  assert.equal(loaded.config.apis.github?.headers.Authorization, "Bearer t");
  assert.deepEqual(loaded.config.apis.petstore?.include, ["tag:pet", "GET /store/*"]);
  assert.equal(loaded.config.apis.library?.graphql, "http://localhost:4000/graphql");
  assert.throws(
    () =>
      parseConfigText('{ "apis": { "both": { "openapi": "a.json", "graphql": "http://x/g" } } }', {
        file: "gateway.json",
        env: {},
      }),
    /"apis\.both" \(line 1\): set exactly one of "openapi" \(a document\) or "graphql"/,
  );
});

Deno.test("GitHub's OpenAPI document is a typed namespace: await tools.github.repos_list_for_org({ org }) from the CLI", async (t) => {
  const prism = await startPrism(GITHUB_SPEC);
  try {
    // The README's entry, pointed at the npm copy of the document and at the mock.
    const readme = parseJsonc(await readmeBlock("readme-apis-config")) as {
      apis: { github: Record<string, unknown> };
    };
    const config = {
      port: 0,
      apis: { github: { ...readme.apis.github, openapi: GITHUB_SPEC, baseUrl: prism.url } },
    };
    const script = await readmeBlock("readme-apis-script");
    await withHarness({
      files: { "gateway.json": JSON.stringify(config) },
      env: { GITHUB_TOKEN: "ghp_test_token" },
    }, async (gw) => {
      await t.step("a typed call answers through the gateway", async () => {
        const run = await gw.cli(["exec", "--json", script]);
        const document = JSON.parse(run.stdout) as RunDocument;
        assert.equal(document.ok, true, run.stdout + run.stderr + prism.output().slice(-2000));
        assert.ok(Array.isArray(document.result));
        assert.equal(typeof (document.result as unknown[])[0], "string");
        await pollUntil(
          "Prism to log the request",
          () =>
            Promise.resolve(/\/orgs\/denoland\/repos\b/.test(prism.output()) ? true : undefined),
          { last: () => prism.output().slice(-500) },
        );
      });

      await t.step(
        "a wrong argument type fails the type check before anything is sent",
        async () => {
          const run = await gw.cli([
            "exec",
            "--json",
            "await tools.github.repos_list_for_org({ org: 42 })",
          ]);
          const document = JSON.parse(run.stdout) as RunDocument;
          assert.equal(document.ok, false);
          assert.equal(document.error?.kind, "CheckFailed");
          assert.match(document.error?.message ?? "", /number.*string/);
        },
      );

      await t.step(
        "tools, types and search know the operations; notes say what was loosened",
        async () => {
          const listed = await gw.cli(["tools", "github"]);
          assert.equal(listed.code, 0, listed.stderr);
          assert.match(listed.stdout, /^github \(openapi, ready\): \d{4} tools/);
          assert.match(listed.stdout, /repos_list_for_org/);
          assert.match(listed.stdout, /notes \(\d+\):\n {2}loosened \d+ schemas/);
          const types = await gw.cli(["tools", "types", "github"]);
          assert.match(types.stdout, /export interface ReposListForOrgInput \{/);
          const found = await gw.cli(["search", "list repos for org", "--limit", "20"]);
          assert.match(found.stdout, /repos_list_for_org/, found.stdout + found.stderr);
        },
      );

      await t.step("a call that changes something waits for approval by default", async () => {
        const client = await gw.client();
        try {
          const started = await client.request<RunningDocument>("exec", {
            source:
              'const repo = await tools.github.repos_create_in_org({ org: "denoland", body: { name: "new-repo" } });\nrepo.name',
            yieldAfterMs: 1500,
          });
          assert.equal(started.status, "running");
          const held = await pendingFor(gw, started.runId);
          assert.equal(held[0]?.tool, "repos_create_in_org");
          assert.match(held[0]?.rule ?? "", /default for calls that change something/);
          const approved = await gw.cli(["approve", started.runId, "--by", "ada"]);
          assert.equal(approved.code, 0, approved.stderr);
          const done = await client.request<RunDocument>("wait", { runId: started.runId });
          assert.equal(done.ok, true, JSON.stringify(done.error));
          assert.equal(typeof done.result, "string");
        } finally {
          client.close();
        }
      });

      await t.step(
        "a request the mock rejects is a ToolError naming status and operation",
        async () => {
          const run = await gw.cli([
            "exec",
            "--json",
            // `since` must be a date-time: the gateway does not check formats, Prism does.
            'await tools.github.activity_list_notifications_for_authenticated_user({ since: "yesterday" })',
          ]);
          const document = JSON.parse(run.stdout) as RunDocument;
          assert.equal(document.ok, false);
          assert.equal(document.error?.kind, "ToolError");
          assert.match(
            document.error?.message ?? "",
            /"github\.activity_list_notifications_for_authenticated_user" \(GET \/notifications\) answered (400|422)/,
          );
        },
      );
    });
  } finally {
    await prism.stop();
  }
});
