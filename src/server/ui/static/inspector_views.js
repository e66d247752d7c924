// The Resources and Prompts views: what an MCP server offers besides tools, per namespace, as
// the MCP Inspector shows it — resources and templates listed and read (text shown, images and
// audio played, other binaries offered as a download), prompts listed with an arguments form
// and their messages shown. Template variables and prompt arguments get the server's
// completions (completion/complete) as suggestions.
import { clippedText, el, formatBytes, prettyJson, setChildren, showError } from "./elements.js";

const COMPLETION_DELAY_MS = 250;

/** Names of the variables in an RFC 6570 URI template, in order, once each. */
export function templateVariables(template) {
  const names = [];
  for (const [, , list] of template.matchAll(/\{([+#./;?&]?)([^}]+)\}/g)) {
    for (const raw of list.split(",")) {
      const name = raw.trim().replace(/\*$|:\d+$/, "");
      if (name && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

/** Expands an RFC 6570 URI template (levels 1–3) with `values`; empty values are left out. */
export function expandTemplate(template, values) {
  return template.replace(/\{([+#./;?&]?)([^}]+)\}/g, (_, op, list) => {
    const encode = op === "+" || op === "#" ? encodeURI : encodeURIComponent;
    const parts = list.split(",").map((raw) => raw.trim().replace(/\*$|:\d+$/, ""))
      .filter((name) => values[name] !== undefined && values[name] !== "")
      .map((name) => ({ name, value: encode(values[name]) }));
    if (parts.length === 0) return "";
    const plain = (separator) => parts.map((p) => p.value).join(separator);
    const named = (first, separator) =>
      first + parts.map((p) => `${p.name}=${p.value}`).join(separator);
    switch (op) {
      case "#":
        return `#${plain(",")}`;
      case ".":
        return `.${plain(".")}`;
      case "/":
        return `/${plain("/")}`;
      case ";":
        return parts.map((p) => `;${p.name}=${p.value}`).join("");
      case "?":
        return named("?", "&");
      case "&":
        return named("&", "&");
      default:
        return plain(",");
    }
  });
}

/** One content item of a read resource (text, or base64 `blob`), shown for what it is. */
function renderContents(item, index) {
  const mime = item.mimeType ?? "";
  const head = el(
    "p",
    { class: "content-head" },
    el("code", {}, item.uri),
    mime ? el("span", { class: "muted" }, ` · ${mime}`) : null,
  );
  if (typeof item.text === "string") {
    const text = /json/.test(mime) ? prettyJson(item.text) : item.text;
    return el(
      "div",
      { class: "content" },
      head,
      el("pre", { tabindex: "0", "aria-label": `Text of ${item.uri}` }, text || "(empty)"),
    );
  }
  const blob = item.blob ?? "";
  if (/^text\/|json|xml/.test(mime)) {
    // Text sent as base64 (MCP allows it) reads as text, decoded as UTF-8.
    const text = new TextDecoder().decode(Uint8Array.from(atob(blob), (c) => c.charCodeAt(0)));
    return el(
      "div",
      { class: "content" },
      head,
      el("p", { class: "muted" }, "Sent as base64, shown decoded:"),
      el("pre", { tabindex: "0", "aria-label": `Text of ${item.uri}` }, text || "(empty)"),
    );
  }
  const bytes = Math.floor(blob.length * 3 / 4) -
    (blob.endsWith("==") ? 2 : blob.endsWith("=") ? 1 : 0);
  const data = `data:${mime || "application/octet-stream"};base64,${blob}`;
  let media;
  if (mime.startsWith("image/")) {
    media = el("img", { src: data, alt: `Image content ${index + 1} of ${item.uri} (${mime})` });
  } else if (mime.startsWith("audio/")) {
    media = el("audio", {
      controls: true,
      src: data,
      "aria-label": `Audio content of ${item.uri}`,
    });
  } else {
    media = el(
      "pre",
      { tabindex: "0", "aria-label": `Base64 of ${item.uri}` },
      blob.length > 600 ? `${blob.slice(0, 600)}…` : blob,
    );
  }
  const name = item.uri.split(/[/:]/).filter(Boolean).pop() || "resource";
  return el(
    "div",
    { class: "content" },
    head,
    el(
      "p",
      {},
      `Binary, ${formatBytes(bytes)} `,
      el("a", { href: data, download: name }, `Download ${name}`),
    ),
    media,
  );
}

/** One content block of a prompt message (text, image, audio, embedded resource, link). */
function renderBlock(block, index) {
  switch (block?.type) {
    case "text":
      return el("pre", { tabindex: "0", class: "message-text" }, block.text);
    case "image":
      return el("img", {
        src: `data:${block.mimeType};base64,${block.data}`,
        alt: `Image ${index + 1} of the message (${block.mimeType})`,
      });
    case "audio":
      return el("audio", {
        controls: true,
        src: `data:${block.mimeType};base64,${block.data}`,
        "aria-label": `Audio ${index + 1} of the message`,
      });
    case "resource":
      return renderContents(block.resource, index);
    case "resource_link":
      return el(
        "p",
        {},
        "Link to ",
        el("code", {}, block.uri),
        block.name ? ` (${block.name})` : "",
      );
    default:
      return el("pre", { tabindex: "0" }, JSON.stringify(block, null, 2));
  }
}

/**
 * Suggestions for one form field from the server's completion/complete, in a datalist the
 * field lists; `ref` names the prompt or template, `context()` the other fields' values.
 */
function completeField(rpc, namespace, { input, list, hint, ref, name, context, unavailable }) {
  let timer = null;
  let asked = 0;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    if (unavailable.reason !== null) return;
    timer = setTimeout(async () => {
      const mine = ++asked;
      try {
        const answer = await rpc.request("upstream.request", {
          namespace,
          method: "completion/complete",
          params: {
            ref,
            argument: { name, value: input.value },
            context: { arguments: context() },
          },
        });
        if (mine !== asked) return;
        const values = answer.value?.completion?.values ?? [];
        setChildren(list, ...values.map((value) => el("option", { value })));
        hint.textContent = values.length === 0
          ? ""
          : `${values.length} ${
            values.length === 1 ? "suggestion" : "suggestions"
          } from the server`;
      } catch (error) {
        // A server without completions says so once; the field works without them.
        if (/does not offer completions/.test(error.message)) unavailable.reason = error.message;
        hint.textContent = `No suggestions: ${error.message}`;
      }
    }, COMPLETION_DELAY_MS);
  });
}

/**
 * A labelled text field with a suggestions list, its description under it, and a line saying
 * how many suggestions the server offers.
 */
function completedInput({ id, label, required, description }) {
  const input = el("input", {
    id,
    type: "text",
    list: `${id}-options`,
    autocomplete: "off",
    required,
    "aria-describedby": `${id}-about ${id}-hint`,
  });
  const list = el("datalist", { id: `${id}-options` });
  const about = el("span", { id: `${id}-about`, class: "muted hint" }, description ?? "");
  const hint = el("span", { id: `${id}-hint`, class: "muted hint" });
  const field = el(
    "label",
    { for: id },
    `${label}${required ? " (required)" : ""}`,
    input,
    list,
    description ? about : null,
    hint,
  );
  return { field, input, list, hint };
}

/** On a phone the detail pane is below the list: scroll to what was just opened. */
function bringIntoView(pane) {
  if (matchMedia("(max-width: 40rem)").matches) pane.scrollIntoView({ block: "start" });
}

/** The Resources and Prompts views over `rpc`. */
export function createInspectorViews(rpc, $) {
  const completions = new Map();
  const unavailableFor = (namespace) => {
    if (!completions.has(namespace)) completions.set(namespace, { reason: null });
    return completions.get(namespace);
  };

  async function read(namespace, uri, title) {
    const detail = $("#resource-detail");
    setChildren(detail, el("h3", {}, title), el("p", { class: "muted" }, `reading ${uri}…`));
    try {
      const answer = await rpc.request("upstream.read", { namespace, uri });
      const contents = answer.contents ?? [];
      setChildren(
        detail,
        el("h3", {}, title),
        contents.length
          ? contents.map(renderContents)
          : el("p", { class: "muted" }, "The server answered with no contents."),
      );
    } catch (error) {
      const box = el("div");
      showError(box, error);
      setChildren(detail, el("h3", {}, title), box);
    }
    bringIntoView(detail);
  }

  function templateForm(namespace, template) {
    const names = templateVariables(template.uriTemplate);
    const slug = template.uriTemplate.replace(/[^A-Za-z0-9]+/g, "-");
    const fields = names.map((name) => ({
      name,
      ...completedInput({ id: `tpl-${slug}-${name}`, label: name, required: true }),
    }));
    const values = () => Object.fromEntries(fields.map((f) => [f.name, f.input.value]));
    const preview = el("code", { class: "uri" }, template.uriTemplate);
    for (const f of fields) {
      f.input.addEventListener(
        "input",
        () => (preview.textContent = expandTemplate(template.uriTemplate, values())),
      );
      completeField(rpc, namespace, {
        ...f,
        ref: { type: "ref/resource", uri: template.uriTemplate },
        context: values,
        unavailable: unavailableFor(namespace),
      });
    }
    return el(
      "form",
      {
        class: "try",
        "aria-label": `Read from template ${template.name}`,
        onsubmit: (event) => {
          event.preventDefault();
          const uri = expandTemplate(template.uriTemplate, values());
          read(namespace, uri, `${template.name}: ${uri}`);
        },
      },
      fields.map((f) => f.field),
      el("p", { class: "muted" }, "Reads ", preview),
      el("button", { type: "submit" }, "Read"),
    );
  }

  async function showResources(namespace) {
    const resources = $("#resource-list");
    const templates = $("#template-list");
    setChildren(
      $("#resource-detail"),
      el("p", { class: "muted" }, "Pick a resource to read it, or fill a template's variables."),
    );
    if (!namespace) {
      const none = "No MCP servers configured — add one under mcpServers in gateway.json; " +
        "its resources are listed here.";
      setChildren(resources, el("li", { class: "empty" }, none));
      setChildren(templates);
      return;
    }
    setChildren(resources, el("li", { class: "muted" }, "loading…"));
    setChildren(templates);
    let listing;
    try {
      listing = await rpc.request("namespace.resources", { namespace });
    } catch (error) {
      setChildren(resources, el("li"));
      showError(resources.firstChild, error);
      return;
    }
    $("#h-resource-list").textContent = `Resources (${listing.resources.length})`;
    if (listing.resources.length === 0 && listing.templates.length === 0) {
      setChildren($("#resource-detail"));
    }
    $("#h-template-list").textContent = `Templates (${listing.templates.length})`;
    setChildren(
      resources,
      ...(listing.resources.length
        ? listing.resources.map((r) =>
          el(
            "li",
            {},
            el("button", {
              type: "button",
              class: "link",
              onclick: () => read(namespace, r.uri, r.name),
            }, r.name),
            r.mimeType ? el("span", { class: "muted" }, ` ${r.mimeType}`) : null,
            el("div", {}, el("code", { class: "uri" }, r.uri)),
            clippedText(r.description ?? ""),
          )
        )
        : [
          el(
            "li",
            { class: "empty" },
            `No resources — "${namespace}" lists none (resources/list answered an empty list, or the server has no resources capability).`,
          ),
        ]),
    );
    setChildren(
      templates,
      ...(listing.templates.length
        ? listing.templates.map((t) =>
          el(
            "li",
            {},
            el("strong", {}, t.name),
            t.mimeType ? el("span", { class: "muted" }, ` ${t.mimeType}`) : null,
            el("div", {}, el("code", { class: "uri" }, t.uriTemplate)),
            clippedText(t.description ?? ""),
            templateForm(namespace, t),
          )
        )
        : [
          el(
            "li",
            { class: "empty" },
            `No resource templates — "${namespace}" lists none (resources/templates/list).`,
          ),
        ]),
    );
  }

  function promptForm(namespace, prompt) {
    const fields = (prompt.arguments ?? []).map((arg) => ({
      name: arg.name,
      ...completedInput({
        id: `prompt-${prompt.name}-${arg.name}`.replace(/[^A-Za-z0-9_-]+/g, "-"),
        label: arg.name,
        required: arg.required === true,
        description: arg.description,
      }),
    }));
    const values = () =>
      Object.fromEntries(
        fields.filter((f) => f.input.value !== "").map((f) => [f.name, f.input.value]),
      );
    for (const f of fields) {
      completeField(rpc, namespace, {
        ...f,
        ref: { type: "ref/prompt", name: prompt.name },
        context: values,
        unavailable: unavailableFor(namespace),
      });
    }
    const output = el("div", { class: "messages", "aria-live": "polite" });
    const form = el(
      "form",
      {
        class: "try",
        "aria-label": `Arguments of ${prompt.name}`,
        onsubmit: async (event) => {
          event.preventDefault();
          setChildren(output, el("p", { class: "muted" }, "getting the prompt…"));
          try {
            const answer = await rpc.request("upstream.request", {
              namespace,
              method: "prompts/get",
              params: { name: prompt.name, arguments: values() },
            });
            const result = answer.value ?? {};
            const messages = result.messages ?? [];
            setChildren(
              output,
              el("h4", {}, `Messages (${messages.length})`),
              result.description ? el("p", { class: "muted" }, result.description) : null,
              el(
                "ol",
                { class: "message-list" },
                messages.map((m) => {
                  const blocks = Array.isArray(m.content) ? m.content : [m.content];
                  return el(
                    "li",
                    { class: `message role-${m.role}` },
                    el("strong", { class: "role" }, m.role),
                    blocks.map(renderBlock),
                  );
                }),
              ),
            );
          } catch (error) {
            showError(output, error);
          }
        },
      },
      fields.length
        ? fields.map((f) => f.field)
        : el("p", { class: "muted" }, "This prompt takes no arguments."),
      el("button", { type: "submit" }, "Get prompt"),
    );
    return [form, output];
  }

  function showPrompt(namespace, prompt) {
    setChildren(
      $("#prompt-detail"),
      el("h3", {}, prompt.title ?? prompt.name),
      prompt.description ? el("p", {}, prompt.description) : null,
      promptForm(namespace, prompt),
    );
    $("#prompt-detail").querySelector("input, button")?.focus();
    bringIntoView($("#prompt-detail"));
  }

  async function showPrompts(namespace) {
    const list = $("#prompt-list");
    setChildren(
      $("#prompt-detail"),
      el("p", { class: "muted" }, "Pick a prompt to fill its arguments and see its messages."),
    );
    if (!namespace) {
      setChildren(
        list,
        el(
          "li",
          { class: "empty" },
          "No MCP servers configured — add one under mcpServers in gateway.json; its prompts are listed here.",
        ),
      );
      return;
    }
    setChildren(list, el("li", { class: "muted" }, "loading…"));
    let prompts;
    let capability;
    try {
      ({ prompts, capability } = await rpc.request("namespace.prompts", { namespace }));
    } catch (error) {
      setChildren(list, el("li"));
      showError(list.firstChild, error);
      return;
    }
    $("#h-prompt-list").textContent = `Prompts (${prompts.length})`;
    setChildren(
      list,
      ...(prompts.length
        ? prompts.map((p) => {
          const args = (p.arguments ?? []).map((a) => `${a.name}${a.required ? "" : "?"}`);
          return el(
            "li",
            {},
            el("button", {
              type: "button",
              class: "link",
              onclick: () => showPrompt(namespace, p),
            }, p.name),
            el(
              "span",
              { class: "muted" },
              args.length ? ` (${args.join(", ")})` : " (no arguments)",
            ),
            clippedText(p.description ?? ""),
          );
        })
        : [
          el(
            "li",
            { class: "empty" },
            capability
              ? `No prompts — "${namespace}" lists none (prompts/list answered an empty list).`
              : `No prompts — "${namespace}" offers none (its server has no prompts capability).`,
          ),
        ]),
    );
  }

  return { showResources, showPrompts };
}
