/**
 * The `gateway.json` contract as a zod schema, with its defaults. Everything that
 * reads configuration takes a {@linkcode GatewayConfig} built here; nothing else parses it.
 * @module
 */

import { z } from "zod";

/** One permission value: Deno splits flag values at commas, so one may never hold one. */
const permissionValue = z.string().min(1).refine((v) => !/[,\0\r\n]/.test(v), {
  message: 'a permission value must not contain "," (or NUL, or a newline): list each value',
});
const permissionGrant = z.union([z.boolean(), z.array(permissionValue)]).optional();

/** Grants a run or a tool module may hold; `true` = unrestricted, a list = only those. */
export const permissionSetSchema = z.strictObject({
  net: permissionGrant,
  read: permissionGrant,
  write: permissionGrant,
  env: permissionGrant,
  run: permissionGrant,
  ffi: permissionGrant,
  sys: permissionGrant,
});

/** A set of Deno permissions, as config, RPC and CLI flags express them. */
export type PermissionSet = z.infer<typeof permissionSetSchema>;

const stdioServerSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
  disabled: z.boolean().default(false),
  /** How long to wait for `initialize` before the namespace is `failed`. */
  startTimeoutMs: z.number().int().positive().default(10_000),
});

const httpServerSchema = z.strictObject({
  url: z.url(),
  headers: z.record(z.string(), z.string()).default({}),
  /** "auto" tries streamable HTTP, then falls back to SSE for old servers. */
  transport: z.enum(["auto", "streamable-http", "sse"]).default("auto"),
  /**
   * OAuth (the MCP authorization spec) for a server that asks for it: on by default with
   * dynamic client registration; a hand-registered client and scopes here; `false` turns it off.
   */
  oauth: z.union([
    z.literal(false),
    z.strictObject({
      clientId: z.string().min(1).optional(),
      clientSecret: z.string().min(1).optional(),
      scopes: z.array(z.string().min(1)).optional(),
      /** Loopback port `gateway auth login` listens on for the redirect; 0 = any free one. */
      redirectPort: z.number().int().min(0).max(65535).optional(),
    }),
  ]).optional(),
  disabled: z.boolean().default(false),
  startTimeoutMs: z.number().int().positive().default(10_000),
});

/** One `mcpServers` entry: stdio (`command`) or remote (`url`). */
export const mcpServerSchema = z.union([stdioServerSchema, httpServerSchema]);

/** One upstream MCP server's settings. */
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

/** `exec` settings: the limits every run gets unless a caller asks for less. */
export const execConfigSchema = z.strictObject({
  timeoutMs: z.number().int().positive().default(120_000),
  callTimeoutMs: z.number().int().positive().default(60_000),
  callMaxMs: z.number().int().positive().default(600_000),
  maxOutputBytes: z.number().int().positive().default(65_536),
  maxToolCalls: z.number().int().positive().default(1000),
  maxConcurrentCalls: z.number().int().positive().default(16),
  typecheck: z.boolean().default(true),
  maxMemoryMb: z.number().int().positive().default(512),
  maxSourceBytes: z.number().int().positive().default(262_144),
  /** Bytes of stdin a run may be given. */
  maxStdinBytes: z.number().int().positive().default(8 * 1024 * 1024),
  /** Attachments one run may hand back, and their bytes in all (base64 as sent). */
  maxAttachments: z.number().int().nonnegative().default(16),
  maxAttachmentBytes: z.number().int().nonnegative().default(16 * 1024 * 1024),
  /** Warnings one run keeps; past this they are counted, not kept. */
  maxWarnings: z.number().int().nonnegative().default(100),
  yieldAfterMs: z.number().int().nonnegative().default(0),
  permissions: permissionSetSchema.default({}),
  maxPermissions: permissionSetSchema.default({}),
  /**
   * Most pre-started runner processes kept for the default (empty) permission set: one is kept
   * when quiet, more while runs come several at once (each idle runner holds memory).
   */
  poolSize: z.number().int().nonnegative().default(2),
  /** Quiet time after which runners started for a burst of runs are stopped. */
  poolIdleMs: z.number().int().positive().default(60_000),
  /** Quiet time after which the type checker's worker is stopped and its memory given back. */
  checkerIdleMs: z.number().int().positive().default(300_000),
  /** Runs executing at once; more wait their turn (each run is a Deno process). */
  maxConcurrentRuns: z.number().int().positive().default(8),
  /** Runs waiting for a turn; past this, new runs are refused as overloaded. */
  maxQueuedRuns: z.number().int().nonnegative().default(1000),
  /**
   * The operating-system sandbox under Deno's permissions for runs and tool modules (Linux:
   * bubblewrap; macOS: sandbox-exec): "auto" uses it where it works and says once where it
   * does not, "required" refuses to start without it, "off" never uses it.
   */
  osSandbox: z.enum(["auto", "required", "off"]).default("auto"),
});

/** Run limits and grants. */
export type ExecConfig = z.infer<typeof execConfigSchema>;

/**
 * A path glob of a policy argument condition: `*` is any run of characters within a segment,
 * `**` any number of segments, `?` one character; `ROOT` as the first segment is the root.
 * Written normalised (no `.` or `..` segment), so what it covers is what it says.
 */
const argGlobSchema = z.string().min(1).superRefine((glob, context) => {
  const segments = glob.split("/");
  if (segments.some((segment) => segment === "." || segment === "..")) {
    context.addIssue({
      code: "custom",
      message:
        `"${glob}" has a "." or ".." segment: write the path it means (values are compared normalised)`,
    });
  }
  if (segments.slice(1).includes("ROOT")) {
    context.addIssue({
      code: "custom",
      message: `"${glob}": ROOT stands for the root only as the first segment ("ROOT/out/**")`,
    });
  }
});

/** What the value(s) at one argument path must be; exactly one of `glob` or `equals`. */
const argConditionSchema = z.strictObject({
  /** Every value there is a string path matching this glob once normalised. */
  glob: argGlobSchema.optional(),
  /** Every value there is exactly this. */
  equals: z.union([z.string(), z.number(), z.boolean(), z.null()]).optional(),
}).refine((condition) => (condition.glob === undefined) !== (condition.equals === undefined), {
  message: 'give exactly one of "glob" (a path pattern) or "equals" (a value)',
});

/** One condition of a policy rule on an argument path (`path`, `options.mode`, `paths.*`). */
export type ArgCondition = z.infer<typeof argConditionSchema>;

/** Argument conditions by argument path: keys joined by `.`, `*` for every element. */
const argConditionsSchema = z.record(z.string(), argConditionSchema).superRefine(
  (conditions, context) => {
    for (const path of Object.keys(conditions)) {
      if (/^[^.]+(\.[^.]+)*$/.test(path)) continue;
      context.addIssue({
        code: "custom",
        path: [path],
        message:
          `"${path}" is not an argument path: keys joined by "." (like "path" or "options.mode"), "*" for every element`,
      });
    }
  },
);

const policyRuleSchema = z.strictObject({
  match: z.string().min(1),
  /**
   * The rule applies only when this holds: an annotation name (`"destructiveHint"`), or
   * `{ annotation?, args? }` where `args` maps argument paths to conditions that all hold.
   */
  when: z.union([
    z.string().min(1),
    z.strictObject({
      annotation: z.string().min(1).optional(),
      args: argConditionsSchema.optional(),
    }),
  ]).optional(),
  action: z.enum(["allow", "deny", "ask"]),
});

/** One `policy` rule. */
export type PolicyRule = z.infer<typeof policyRuleSchema>;

/** One tool module's settings under `tools.<name>`. */
export const toolModuleConfigSchema = z.strictObject({
  /** Deno permissions of the module's tool host; absent = all (the user wrote the module). */
  permissions: permissionSetSchema.optional(),
  /** Free-form settings handed to the module as JSON in `GATEWAY_TOOL_SETTINGS`. */
  settings: z.record(z.string(), z.unknown()).default({}),
  disabled: z.boolean().default(false),
  /**
   * Resident memory of the module's tool host; past it the host is restarted. Setting it runs
   * the module isolated (a limit needs a process of its own to measure). @default {1024}
   */
  maxMemoryMb: z.number().int().positive().optional(),
  /**
   * Run the module in a `deno run` process of its own instead of a Worker of the shared tool
   * host. @default {true when maxMemoryMb is set, else false}
   */
  isolate: z.boolean().optional(),
});

/** Settings of one tool module. */
export type ToolModuleConfig = z.infer<typeof toolModuleConfigSchema>;

/**
 * One `apis` entry: an HTTP API described by an OpenAPI/Swagger document (`openapi`) or a
 * GraphQL endpoint (`graphql`), which the gateway calls on the script's behalf.
 */
export const apiConfigSchema = z.strictObject({
  /** Path (relative to the root) or URL of an OpenAPI 3.x / Swagger 2.0 document, JSON or YAML. */
  openapi: z.string().min(1).optional(),
  /** URL of a GraphQL endpoint that answers introspection. */
  graphql: z.url().optional(),
  /** Where calls go; default: the document's first server (OpenAPI) or the endpoint (GraphQL). */
  baseUrl: z.url().optional(),
  /** Sent with every call (`${env:NAME}` expands, like everywhere in gateway.json). */
  headers: z.record(z.string(), z.string()).default({}),
  /** Operations to keep: `tag:NAME`, `METHOD /path/*`, `/path/*` or a tool-name glob. */
  include: z.array(z.string().min(1)).default([]),
  /** Operations to leave out, same patterns as `include`. */
  exclude: z.array(z.string().min(1)).default([]),
  /** Policy for calls that change something (non-GET/HEAD, mutations) when no rule matches. */
  writes: z.enum(["ask", "allow", "deny"]).default("ask"),
  disabled: z.boolean().default(false),
}).refine((api) => (api.openapi === undefined) !== (api.graphql === undefined), {
  message: 'set exactly one of "openapi" (a document) or "graphql" (an endpoint URL)',
});

/** One HTTP API's settings under `apis.<name>`. */
export type ApiConfig = z.infer<typeof apiConfigSchema>;

/** The whole `gateway.json`, unknown keys refused at every level. */
export const gatewayConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  /**
   * Absent: 9420, or any free port when another program (another project's gateway) holds it.
   * Set: exactly this port (0 = any free one).
   */
  port: z.number().int().min(0).max(65535).optional(),
  host: z.string().default("127.0.0.1"),
  mcpServers: z.record(z.string(), mcpServerSchema).default({}),
  exec: execConfigSchema.default(execConfigSchema.parse({})),
  policy: z.array(policyRuleSchema).default([]),
  history: z.strictObject({
    maxRuns: z.number().int().positive().default(10_000),
    maxAgeDays: z.number().positive().default(30),
    redact: z.array(z.string()).default([]),
    maxOutputBytes: z.number().int().positive().default(1_048_576),
  }).default({ maxRuns: 10_000, maxAgeDays: 30, redact: [], maxOutputBytes: 1_048_576 }),
  tools: z.record(z.string(), toolModuleConfigSchema).default({}),
  apis: z.record(z.string(), apiConfigSchema).default({}),
  /**
   * Tools (`"ns.tool"`) whose compact signatures the agent guides show up front, so a model
   * calls the tools a project always uses without searching first.
   */
  pinned: z.array(z.string().min(1)).default([]),
  /**
   * Where shared state lives. Absent: `DATA_DIR/gateway.db` (SQLite). `postgres`: a connection
   * URL (usually `"${env:DATABASE_URL}"`) so several gateway instances share run history.
   */
  store: z.strictObject({
    postgres: z.string().regex(/^postgres(ql)?:\/\//, {
      message: "must be a postgres:// or postgresql:// URL",
    }).optional(),
    /** Connections this instance keeps open to PostgreSQL. */
    poolSize: z.number().int().positive().default(10),
    /** An instance silent this long is dead: the others mark its runs `Crashed`. */
    leaseMs: z.number().int().min(300).default(15_000),
  }).default({ poolSize: 10, leaseMs: 15_000 }),
});

/** The validated configuration with every default filled in. */
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
