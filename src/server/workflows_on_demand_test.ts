import assert from "node:assert/strict";
import { join } from "node:path";
import { openGatewayDatabase } from "../store/gateway_database.ts";
import { sqliteWorkflowSessions } from "../store/sqlite_store.ts";
import { WorkflowService } from "../workflows/workflow_service.ts";
import { WorkflowsOnDemand } from "./workflows_on_demand.ts";

Deno.test("the workflow service is made on the first get() and is the same one after", async () => {
  const dir = await Deno.makeTempDir();
  const db = openGatewayDatabase(join(dir, "gateway.db"));
  try {
    const workflows = new WorkflowsOnDemand(sqliteWorkflowSessions(db), dir);
    const [first, second] = await Promise.all([workflows.get(), workflows.get()]);
    assert.ok(first instanceof WorkflowService);
    assert.equal(second, first);
    assert.equal(await workflows.get(), first);
    // It serves the root it was given: its `workflows/` folder, empty here.
    const listed = await first.list();
    assert.equal(listed.directory, join(dir, "workflows"));
    assert.deepEqual(listed.files, []);
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
