// The dashboard's one connection to the gateway: JSON-RPC over the WebSocket at /ws for every
// request, and the notifications the gateway pushes on it (no polling). Reconnects with
// back-off; requests in flight when it drops fail with "connection lost".

/** JSON-RPC over /ws; `onOpen` runs after every (re)connection, `onState(state, text)` on changes. */
export class RpcSocket {
  #socket = null;
  #next = 1;
  #pending = new Map();
  #listeners = new Set();
  #onOpen;
  #onState;
  #retry = 500;

  constructor({ onOpen, onState }) {
    this.#onOpen = onOpen;
    this.#onState = onState;
    this.#connect();
  }

  #connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // The session cookie `gateway ui` signed this browser in with goes along.
    const socket = new WebSocket(`${scheme}://${location.host}/ws`);
    this.#socket = socket;
    socket.onopen = () => {
      this.#retry = 500;
      this.#onState("live", "connected");
      this.#onOpen();
    };
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.method && message.id === undefined) {
        for (const listener of this.#listeners) listener(message.method, message.params);
        return;
      }
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (message.error) {
        const error = new Error(message.error.message);
        error.data = message.error.data;
        pending.reject(error);
      } else pending.resolve(message.result);
    };
    socket.onclose = () => {
      this.#onState("down", "disconnected: reconnecting…");
      for (const pending of this.#pending.values()) {
        pending.reject(new Error("connection lost"));
      }
      this.#pending.clear();
      setTimeout(() => this.#connect(), this.#retry);
      this.#retry = Math.min(this.#retry * 2, 10_000);
    };
  }

  /** Whether requests can be sent now. */
  get connected() {
    return this.#socket?.readyState === WebSocket.OPEN;
  }

  /** Sends `method` and resolves with its result (rejects with the gateway's error). */
  request(method, params = {}) {
    if (this.#socket?.readyState !== WebSocket.OPEN) {
      return Promise.reject(new Error("not connected to the gateway"));
    }
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  /** Hears every notification the gateway pushes: `listener(method, params)`. */
  on(listener) {
    this.#listeners.add(listener);
  }
}
