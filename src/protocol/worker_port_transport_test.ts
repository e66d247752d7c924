import { peerContract } from "../../test/support/peer_contract.ts";
import { WorkerPortTransport } from "./worker_port_transport.ts";

peerContract({
  name: "Worker port",
  make() {
    const worker = new Worker(
      new URL("../../test/fixtures/peer/contract_worker.ts", import.meta.url),
      { type: "module" },
    );
    const transport = new WorkerPortTransport(worker, {
      end: () => worker.terminate(),
      closeOnError: true,
    });
    return Promise.resolve({
      transport,
      close: () => {
        worker.terminate();
        return Promise.resolve();
      },
    });
  },
  unsendable: () => "a function cannot be cloned",
  gone: { how: "end", reason: /the other side ended/ },
});

peerContract({
  name: "Worker port (the Worker fails)",
  make() {
    const worker = new Worker(
      new URL("../../test/fixtures/peer/contract_worker.ts", import.meta.url),
      { type: "module" },
    );
    return Promise.resolve({
      transport: new WorkerPortTransport(worker, {
        end: () => worker.terminate(),
        closeOnError: true,
      }),
      close: () => {
        worker.terminate();
        return Promise.resolve();
      },
    });
  },
  unsendable: Symbol("a symbol cannot be cloned"),
  gone: { how: "throw", reason: /failed: .*thrown on purpose/ },
});
