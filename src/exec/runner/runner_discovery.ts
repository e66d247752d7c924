/**
 * The runner's `search()`/`describe()` code, bundled on its own (`runner_discovery.bundle.js`,
 * by `deno task bundle`) and imported by the runner only for a run whose script uses
 * them: it is about half the runner's code, which every run would otherwise parse.
 * @module
 */

export { DiscoveryReader } from "../../protocol/discovery_data.ts";
