let status: "idle" | "done" = "idle";
status = "done";
status
