/**
 * The Web Worker side of `ScriptCheckerWorker`: holds one warm `ScriptChecker` and answers
 * requests one at a time, in the order they came. Loaded only with `new Worker(…)`.
 * @module
 */

import { loadDenoLibTypes } from "./deno_lib_types.ts";
import { ScriptChecker } from "./script_checker.ts";
import type { CheckerRequest, CheckerResponse } from "./script_checker_worker.ts";
import { prepareScript } from "./script_transform.ts";

/** The parts of the worker's global scope this module uses. */
interface WorkerScope {
  postMessage(message: CheckerResponse): void;
  addEventListener(type: "message", listener: (event: MessageEvent<CheckerRequest>) => void): void;
}

/**
 * Serves checker requests on the worker's message port. Checker requests are chained so an
 * `init` that is still loading finishes before the checks sent behind it run.
 */
function serveChecker(scope: WorkerScope): void {
  let checker: ScriptChecker | null = null;
  let queue: Promise<void> = Promise.resolve();
  /** Deno's declarations, loaded once (ahead of the warm-up when the worker is preloaded). */
  let declarations: Promise<string> | null = null;
  const loadDeclarations = (request: { cacheDir: string; denoPath?: string }) =>
    declarations ??= loadDenoLibTypes({
      cacheDir: request.cacheDir,
      ...(request.denoPath === undefined ? {} : { denoPath: request.denoPath }),
    }).catch((error) => {
      declarations = null; // the next warm-up tries again, and reports its own failure
      throw error;
    });
  /** Prepares received and not yet answered. */
  let preparing = 0;
  let prepared = Promise.withResolvers<void>();

  /**
   * Resolves once no prepare is being answered, a task later: the warm-up blocks the thread
   * for hundreds of milliseconds in each of its steps, and a run's prepare (all a run without a
   * type check waits for) must not wait behind them.
   */
  async function preparesAnswered(): Promise<void> {
    while (preparing > 0) await prepared.promise;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }

  async function answer(request: CheckerRequest): Promise<unknown> {
    if (request.op === "declarations") {
      await loadDeclarations(request);
      return null;
    }
    if (request.op === "init") {
      const denoTypes = await loadDeclarations(request);
      checker?.dispose();
      checker = await ScriptChecker.create({ denoTypes, globals: request.globals });
      await preparesAnswered();
      checker.buildProgram();
      await preparesAnswered();
      checker.warmUp();
      return null;
    }
    if (request.op === "prepare") return await prepareScript(request.source, request.options);
    if (checker === null) throw new Error("Script checker is not initialised: send init first");
    switch (request.op) {
      case "setGlobals":
        checker.setGlobals(request.globals);
        return null;
      case "check":
        return checker.check(request.script);
      case "globalsDiagnostics":
        return checker.globalsDiagnostics();
    }
  }

  async function reply(request: CheckerRequest): Promise<void> {
    try {
      scope.postMessage({ id: request.id, ok: true, value: await answer(request) });
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      const cause = failure.cause instanceof Error ? `: ${failure.cause.message}` : "";
      scope.postMessage({
        id: request.id,
        ok: false,
        name: failure.name,
        message: `${failure.message}${cause}`,
      });
    }
  }

  scope.addEventListener("message", (event) => {
    const request = event.data;
    // Preparing touches no checker state, so it never waits behind a warm-up; nor does loading
    // the declarations, which a warm-up then shares.
    if (request.op === "declarations") void reply(request);
    else if (request.op === "prepare") {
      preparing++;
      void reply(request).finally(() => {
        if (--preparing > 0) return;
        prepared.resolve();
        prepared = Promise.withResolvers<void>();
      });
    } else queue = queue.then(() => reply(request));
  });
}

serveChecker(globalThis as unknown as WorkerScope);
