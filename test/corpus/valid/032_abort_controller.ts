const controller = new AbortController();
controller.abort();
controller.signal.aborted
