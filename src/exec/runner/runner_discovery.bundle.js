// src/protocol/names.ts
function editDistance(a, b) {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let before = new Array(b.length + 1).fill(0);
  let previous = Array.from({
    length: b.length + 1
  }, (_, j) => j);
  let current = new Array(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, before[j - 2] + 1);
      }
      current[j] = best;
    }
    [before, previous, current] = [
      previous,
      current,
      before
    ];
  }
  return previous[b.length];
}
function fold(name) {
  return name.toLowerCase().replaceAll("-", "_");
}
function nearestNames(name, candidates, options = {}) {
  const limit = options.limit ?? 5;
  const target = fold(name);
  const maxDistance = options.maxDistance ?? Math.max(2, Math.floor(target.length / 3));
  const scored = [];
  for (const candidate of new Set(candidates)) {
    const folded = fold(candidate);
    let distance = editDistance(target, folded);
    const contains = target.length >= 3 && (folded.includes(target) || target.includes(folded));
    if (contains && folded.length >= 2) distance = Math.min(distance, 1);
    if (distance <= maxDistance) {
      scored.push({
        name: candidate,
        distance,
        spread: Math.abs(folded.length - target.length)
      });
    }
  }
  scored.sort((a, b) => a.distance - b.distance || a.spread - b.spread || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, Math.max(0, limit)).map((entry) => entry.name);
}

// src/protocol/discovery_paths.ts
var UnknownPathError = class extends Error {
  /** The path as given. */
  path;
  /** Nearest known paths, nearest first; may be empty. */
  nearest;
  constructor(path, nearest) {
    super(`Cannot describe "${path}": no such tool, namespace or script` + (nearest.length > 0 ? ` (did you mean ${nearest.map((name) => `"${name}"`).join(", ")}?)` : '; search("words") lists what exists'));
    this.name = "UnknownPathError";
    this.path = path;
    this.nearest = nearest;
  }
};
function splitPath(path) {
  const segments = [];
  const pattern = /\.?([^.[\]\s"']+)|\[\s*"((?:[^"\\]|\\.)*)"\s*\]|\[\s*'((?:[^'\\]|\\.)*)'\s*\]/y;
  let pos = 0;
  const text = path.trim();
  while (pos < text.length) {
    pattern.lastIndex = pos;
    const match = pattern.exec(text);
    if (match === null) return null;
    if (match[1] !== void 0 && pos > 0 && text[pos] !== ".") return null;
    const quoted = match[2] ?? match[3];
    segments.push(quoted === void 0 ? match[1] : quoted.replace(/\\(.)/g, "$1"));
    pos = pattern.lastIndex;
  }
  return segments.length === 0 ? null : segments;
}
var PathIndex = class {
  /** Namespaces in the order given (by name). */
  namespaces;
  /** Every item, in the order given. */
  items;
  #namespaceByName = /* @__PURE__ */ new Map();
  #toolByKey = /* @__PURE__ */ new Map();
  #scriptByName = /* @__PURE__ */ new Map();
  /** `namespaces` sorted by name; `items` tools (by namespace) then scripts, in path order. */
  constructor(namespaces, items) {
    this.namespaces = namespaces;
    this.items = items;
    const byIdentifier = /* @__PURE__ */ new Map();
    for (const ns of namespaces) {
      this.#namespaceByName.set(ns.identifier, ns);
      this.#namespaceByName.set(ns.name, ns);
      byIdentifier.set(ns.identifier, ns);
      this.#toolByKey.set(ns, /* @__PURE__ */ new Map());
    }
    for (const item of items) {
      if (item.kind === "script") {
        this.#scriptByName.set(item.name, item);
        continue;
      }
      const ns = byIdentifier.get(item.namespace.identifier);
      const byKey = ns === void 0 ? void 0 : this.#toolByKey.get(ns);
      if (byKey === void 0) continue;
      byKey.set(item.identifier, item);
      if (!byKey.has(item.name)) byKey.set(item.name, item);
    }
  }
  /** Finds a namespace by its name or identifier. */
  namespace(name) {
    return this.#namespaceByName.get(name);
  }
  /**
   * Resolves a path: `tools.kv.get`, `kv.get`, `tools.kv["get-item"]`, `tools["my-ns"].get`,
   * `tools.kv`, `kv`, a script name (with or without `.ts`). Undefined when nothing matches.
   */
  resolve(path) {
    const trimmed = path.trim();
    const script = this.#scriptByName.get(trimmed) ?? this.#scriptByName.get(trimmed.replace(/\.ts$/, ""));
    if (script !== void 0) return script;
    const segments = splitPath(trimmed);
    if (segments === null) return void 0;
    const rest = segments[0] === "tools" && segments.length > 1 ? segments.slice(1) : segments;
    if (rest.length === 1) {
      const ns = this.namespace(rest[0]);
      return ns === void 0 ? void 0 : {
        kind: "namespace",
        namespace: ns
      };
    }
    for (let split = 1; split < rest.length; split++) {
      const ns = this.namespace(rest.slice(0, split).join("."));
      const tool = ns && this.#toolByKey.get(ns)?.get(rest.slice(split).join("."));
      if (tool !== void 0) return tool;
    }
    return void 0;
  }
  /** Every path worth suggesting for a mistyped one: namespaces, then item paths. */
  suggestions() {
    return [
      ...this.namespaces.map((ns) => `tools.${ns.identifier}`),
      ...this.items.map((item) => item.path)
    ];
  }
  /** The known paths nearest a path that resolves to nothing, nearest first (at most 5). */
  nearestPaths(path) {
    const byKey = /* @__PURE__ */ new Map();
    const offer = (key, full) => {
      if (!byKey.has(key)) byKey.set(key, full);
    };
    for (const ns of this.namespaces) offer(ns.identifier, `tools.${ns.identifier}`);
    for (const item of this.items) {
      if (item.kind === "tool") {
        offer(`${item.namespace.identifier}.${item.identifier}`, item.path);
        offer(item.identifier, item.path);
        offer(item.name, item.path);
      } else {
        offer(item.path, item.path);
      }
    }
    const target = path.trim().replace(/^tools\./, "");
    const near = nearestNames(target, byKey.keys(), {
      limit: 10
    }).map((key) => byKey.get(key));
    return [
      ...new Set(near)
    ].slice(0, 5);
  }
};

// src/protocol/catalogue.ts
function compareText(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

// src/protocol/invalid_argument_error.ts
var InvalidArgumentError = class extends RangeError {
};

// src/protocol/discovery_search.ts
var WEIGHT = {
  nameTerm: 10,
  nameSubstring: 6,
  namespace: 4,
  param: 4,
  description: 3,
  example: 2,
  /** Multiplier for a query word that is only a prefix of an indexed word. */
  prefix: 0.5,
  /** Added when the whole query, folded, is the item's name. */
  wholeName: 30,
  /** Added when the item's name contains the whole multi-word query, folded. */
  nameContainsQuery: 8
};
var STOP_WORDS = /* @__PURE__ */ new Set([
  "a",
  "an",
  "and",
  "are",
  "by",
  "for",
  "from",
  "in",
  "is",
  "it",
  "of",
  "on",
  "or",
  "the",
  "to",
  "with"
]);
function stem(word) {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  let out = word;
  if (out.length > 3 && out.endsWith("s") && !/(?:ss|us|is)$/.test(out)) out = out.slice(0, -1);
  if (out.length > 3 && out.endsWith("e")) out = out.slice(0, -1);
  return out;
}
function searchTerms(text) {
  return text.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2").replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2").toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word !== "").map(stem);
}
function foldName(text) {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}
function validateOptions(options) {
  const limit = options.limit ?? 10;
  const offset = options.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidArgumentError(`Cannot search: "limit" must be a positive integer, got "${limit}"`);
  }
  if (!Number.isInteger(offset) || offset < 0) {
    throw new InvalidArgumentError(`Cannot search: "offset" must be a non-negative integer, got "${offset}"`);
  }
  return {
    limit,
    offset
  };
}
function toHit(entry) {
  return {
    path: entry.path,
    kind: entry.kind,
    signature: entry.signature,
    description: entry.summary,
    ...entry.kind === "tool" && entry.security !== void 0 ? {
      security: entry.security
    } : {}
  };
}
var RankedIndex = class {
  /** The items and path resolution this index was built on. */
  paths;
  #items = [];
  #postings = /* @__PURE__ */ new Map();
  #vocabulary;
  constructor(paths) {
    this.paths = paths;
    const weights = /* @__PURE__ */ new Map();
    const add = (term, item, weight) => {
      let byItem = weights.get(term);
      if (byItem === void 0) weights.set(term, byItem = /* @__PURE__ */ new Map());
      byItem.set(item, Math.max(byItem.get(item) ?? 0, weight));
    };
    for (const entry of paths.items) {
      const item = this.#items.length;
      const name = entry.name;
      const nameTerms = searchTerms(name);
      this.#items.push({
        entry,
        namespace: entry.kind === "tool" ? entry.namespace.identifier : null,
        folded: foldName(name),
        foldedStem: nameTerms.join("")
      });
      for (const term of nameTerms) add(term, item, WEIGHT.nameTerm);
      if (entry.kind === "tool") {
        for (const term of searchTerms(`${entry.namespace.name} ${entry.namespace.identifier}`)) {
          add(term, item, WEIGHT.namespace);
        }
        for (const term of searchTerms(entry.paramNames.join(" "))) {
          add(term, item, WEIGHT.param);
        }
        for (const term of searchTerms(entry.description)) {
          add(term, item, WEIGHT.description);
        }
      } else {
        for (const term of searchTerms(entry.paramNames.join(" "))) {
          add(term, item, WEIGHT.param);
        }
        for (const term of searchTerms(entry.description)) {
          add(term, item, WEIGHT.description);
        }
        for (const term of searchTerms(entry.examples.join(" "))) {
          add(term, item, WEIGHT.example);
        }
      }
    }
    for (const [term, byItem] of weights) {
      this.#postings.set(term, {
        items: [
          ...byItem.keys()
        ],
        weights: [
          ...byItem.values()
        ]
      });
    }
    this.#vocabulary = [
      ...weights.keys()
    ].sort(compareText);
  }
  /**
   * Ranks tools and scripts for a query. An exact path (`tools.kv.get`, `kv.get`, a script
   * name) answers that item alone; an empty query lists the namespace (or everything) in path
   * order. Ties are broken by path, so the same query always pages the same way.
   */
  search(query, options = {}) {
    const { limit, offset } = validateOptions(options);
    let namespace = null;
    if (options.namespace !== void 0) {
      const ns = this.paths.namespace(options.namespace);
      if (ns === void 0) {
        const near = nearestNames(options.namespace, this.paths.namespaces.map((n) => n.name));
        throw new InvalidArgumentError(`Cannot search namespace "${options.namespace}": no such namespace` + (near.length > 0 ? ` (did you mean ${near.map((n) => `"${n}"`).join(", ")}?)` : ""));
      }
      namespace = ns.identifier;
    }
    const ranked = this.#rank(query, namespace);
    const page = ranked.slice(offset, offset + limit).map(toHit);
    const next = offset + limit < ranked.length ? offset + limit : null;
    return {
      results: page,
      total: ranked.length,
      next
    };
  }
  #inScope(item, namespace) {
    return namespace === null || item.namespace === namespace;
  }
  #rank(query, namespace) {
    const trimmed = query.trim();
    const items = this.#items;
    if (trimmed === "") {
      return items.filter((item) => this.#inScope(item, namespace)).map((item) => item.entry).sort((a, b) => compareText(a.path, b.path));
    }
    const resolved = this.paths.resolve(trimmed);
    if (resolved !== void 0 && resolved.kind !== "namespace") {
      const ns = resolved.kind === "tool" ? resolved.namespace.identifier : null;
      if (namespace === null || ns === namespace) return [
        resolved
      ];
    }
    const all = [
      ...new Set(searchTerms(trimmed))
    ];
    const meaningful = all.filter((term) => !STOP_WORDS.has(term));
    const terms = meaningful.length > 0 ? meaningful : all;
    if (terms.length === 0) return [];
    const scores = new Float64Array(items.length);
    const matched = new Uint16Array(items.length);
    const best = new Float64Array(items.length);
    for (const term of terms) {
      best.fill(0);
      this.#scoreTerm(term, best);
      for (let i = 0; i < items.length; i++) {
        if (best[i] > 0) {
          scores[i] = scores[i] + best[i];
          matched[i] = matched[i] + 1;
        }
      }
    }
    const foldedQuery = foldName(trimmed);
    const stemmedQuery = terms.join("");
    const hits = [];
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (matched[i] === 0 || !this.#inScope(item, namespace)) continue;
      let score = scores[i] * (matched[i] / terms.length);
      if (item.folded === foldedQuery || item.foldedStem === stemmedQuery) {
        score += WEIGHT.wholeName;
      } else if (terms.length > 1 && item.foldedStem.includes(stemmedQuery)) {
        score += WEIGHT.nameContainsQuery;
      }
      hits.push({
        entry: item.entry,
        score
      });
    }
    hits.sort((a, b) => b.score - a.score || compareText(a.entry.path, b.entry.path));
    return hits.map((hit) => hit.entry);
  }
  /** Writes into `best` the highest weight `term` earns in each item. */
  #scoreTerm(term, best) {
    const exact = this.#postings.get(term);
    if (exact !== void 0) {
      for (let k = 0; k < exact.items.length; k++) {
        const item = exact.items[k];
        best[item] = Math.max(best[item], exact.weights[k]);
      }
    }
    if (term.length >= 3) {
      const vocabulary = this.#vocabulary;
      let low = 0;
      let high = vocabulary.length;
      while (low < high) {
        const mid = low + high >>> 1;
        if (vocabulary[mid] < term) low = mid + 1;
        else high = mid;
      }
      for (let v = low; v < vocabulary.length && vocabulary[v].startsWith(term); v++) {
        if (vocabulary[v] === term) continue;
        const posting = this.#postings.get(vocabulary[v]);
        for (let k = 0; k < posting.items.length; k++) {
          const item = posting.items[k];
          best[item] = Math.max(best[item], posting.weights[k] * WEIGHT.prefix);
        }
      }
    }
    if (term.length >= 2) {
      const items = this.#items;
      for (let i = 0; i < items.length; i++) {
        if (best[i] < WEIGHT.nameSubstring && items[i].foldedStem.includes(term)) {
          best[i] = WEIGHT.nameSubstring;
        }
      }
    }
  }
};

// src/protocol/source_mask.ts
function maskSource(source) {
  if (!/[/"'`]/.test(source)) return {
    code: source,
    noComments: source
  };
  const special = /[/"'`]/g;
  const code = [];
  const noComments = [];
  const blank = (text) => text.replace(/[^\n]/g, " ");
  let i = 0;
  let from = 0;
  const flush = (to) => {
    const plain = source.slice(from, to);
    code.push(plain);
    noComments.push(plain);
  };
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === "/" && (next === "/" || next === "*")) {
      flush(i);
      let end = next === "/" ? source.indexOf("\n", i) : source.indexOf("*/", i + 2);
      end = end < 0 ? source.length : next === "/" ? end : end + 2;
      const blanked = blank(source.slice(i, end));
      code.push(blanked);
      noComments.push(blanked);
      i = from = end;
    } else if (c === '"' || c === "'" || c === "`") {
      flush(i);
      let j = i + 1;
      while (j < source.length && source[j] !== c && (c === "`" || source[j] !== "\n")) {
        j += source[j] === "\\" ? 2 : 1;
      }
      j = Math.min(j, source.length);
      const closed = source[j] === c;
      const end = closed ? j + 1 : j;
      code.push(c + blank(source.slice(i + 1, closed ? j : end)) + (closed ? c : ""));
      noComments.push(source.slice(i, end));
      i = from = end;
    } else {
      special.lastIndex = i + 1;
      i = special.exec(source)?.index ?? source.length;
    }
  }
  flush(source.length);
  return {
    code: code.join(""),
    noComments: noComments.join("")
  };
}

// src/protocol/jsdoc_text.ts
var DOC_MAX_CHARS = 100;
function shortenDocs(text, max = DOC_MAX_CHARS) {
  const { noComments } = maskSource(text);
  let out = "";
  let last = 0;
  for (let i = text.indexOf("/*"); i >= 0; i = text.indexOf("/*", i + 2)) {
    if (i < last || noComments[i] !== " ") continue;
    const close = text.indexOf("*/", i + 2);
    const end = close < 0 ? text.length : close + 2;
    const doc = docText(text.slice(i, end));
    const lineStart = text.lastIndexOf("\n", i) + 1;
    const onlyThing = text.slice(lineStart, i).trim() === "" && /^[ \t]*(\r?\n|$)/.test(text.slice(end));
    if (doc === "") {
      out += onlyThing ? text.slice(last, lineStart) : text.slice(last, i);
      last = onlyThing ? Math.min(text.length, text.indexOf("\n", end) + 1 || text.length) : end;
    } else {
      out += `${text.slice(last, i)}/** ${cutText(doc, max).replaceAll("*/", "*\\/")} */`;
      last = end;
    }
    i = end - 2;
  }
  return out + text.slice(last);
}
function docText(comment) {
  const lines = comment.replace(/^\/\*\*?/, "").replace(/\*\/$/, "").split(/\r?\n/).map((line) => line.replace(/^\s*\*\s?/, "").trim());
  const kept = [];
  for (const line of lines) {
    if (line.startsWith("@")) break;
    kept.push(line);
  }
  return markdownText(kept.join(" ")).replace(/\s+/g, " ").trim();
}
function markdownText(text) {
  return text.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/\*\*([^*]+)\*\*/g, "$1").replace(/(^|\s)_([^_\s][^_]*)_(?=[\s.,;:]|$)/g, "$1$2");
}
function cutText(text, max) {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, "")}\u2026`;
}
function jsDoc(lines) {
  const safe = lines.map((line) => line.replaceAll("*/", "*\\/"));
  if (safe.length === 1) return `/** ${safe[0]} */`;
  return `/**
${safe.map((line) => ` * ${line}`).join("\n")}
 */`;
}

// src/protocol/type_outline.ts
var DESCRIPTION_MAX_CHARS = 200;
var OUTLINE_NESTED_MAX_CHARS = 300;
function identifiersOf(typeText) {
  return [
    ...maskSource(typeText).code.matchAll(/[A-Za-z_$][\w$]*/g)
  ].map((m) => m[0]);
}
function declarationClosure(roots, declarations, depth = Infinity) {
  const seen = /* @__PURE__ */ new Set();
  let level = roots.filter((name) => Object.hasOwn(declarations, name));
  for (let hop = 0; hop < depth && level.length > 0; hop++) {
    const next = [];
    for (const name of level) {
      if (seen.has(name)) continue;
      seen.add(name);
      for (const ref of identifiersOf(declarations[name])) {
        if (ref !== name && Object.hasOwn(declarations, ref) && !seen.has(ref)) next.push(ref);
      }
    }
    level = next;
  }
  return Object.keys(declarations).filter((name) => seen.has(name));
}
function outlineDeclaration(name, text) {
  const body = declarationBody(text);
  if (body === null) return `${name}: ${oneLine(stripComments(text))}`;
  const full = oneLine(body);
  const shown = full.length <= OUTLINE_NESTED_MAX_CHARS ? full : collapseNested(full);
  return `${name}: ${shown}`;
}
function collapseNested(typeText) {
  const { code } = maskSource(typeText);
  let out = "";
  let depth = 0;
  let last = 0;
  let cutFrom = -1;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === "{") {
      depth++;
      if (depth === 2) cutFrom = i;
    } else if (c === "}") {
      if (depth === 2 && cutFrom >= 0) {
        out += `${typeText.slice(last, cutFrom)}{\u2026}`;
        last = i + 1;
        cutFrom = -1;
      }
      depth = Math.max(0, depth - 1);
    }
  }
  return out + typeText.slice(last);
}
function composeCompactDescription(tool, declarations, options = {}) {
  const depth = Math.max(1, Math.floor(options.depth ?? 1));
  const inputNames = declarationClosure(identifiersOf(tool.inputType ?? ""), declarations);
  const doc = [];
  const description = cutDescription(tool.description);
  if (description !== "") doc.push(description);
  if (inputNames.length === 0) {
    for (const param of tool.params ?? []) {
      const text = cutText(markdownText(param.description.split(/\r?\n/)[0] ?? ""), 80);
      if (text !== "") doc.push(`@param args.${param.name} ${text}`);
    }
  }
  const params = tool.inputType === null ? "" : `args${tool.inputOptional ? "?" : ""}: ${oneLine(stripComments(tool.inputType))}`;
  const output = oneLine(stripComments(tool.outputType)) || "unknown";
  const lines = [
    ...doc.length === 0 ? [] : [
      jsDoc(doc)
    ],
    `${tool.path}(${params}): Promise<${output.length > OUTLINE_NESTED_MAX_CHARS ? collapseNested(output) : output}>`,
    ...tool.notes ?? []
  ];
  for (const name of inputNames) lines.push(shortenDocs(stripExport(declarations[name])));
  const shown = new Set(inputNames);
  const renames = /* @__PURE__ */ new Map();
  const roots = throughAliases(identifiersOf(output), declarations, renames);
  const outputNames = declarationClosure(roots, declarations, depth).filter((name) => !shown.has(name) && !renames.has(name));
  if (outputNames.length > 0) {
    const more = declarationClosure(roots, declarations, depth + 1).some((name) => !shown.has(name) && !outputNames.includes(name) && !renames.has(name));
    lines.push(`// Returns${more ? ` (depth: ${depth + 1} expands the types named here)` : ""}:`);
    const aliasOf = new Map([
      ...renames
    ].map(([alias, rename]) => [
      rename.target,
      {
        alias,
        body: rename.body
      }
    ]));
    for (const name of outputNames) {
      const rename = aliasOf.get(name);
      const prefix = rename === void 0 ? "" : rename.body === name ? `${rename.alias} = ` : `${rename.alias} = ${rename.body}; `;
      lines.push(`// ${prefix}${outlineDeclaration(name, declarations[name])}`);
    }
  }
  return `${lines.join("\n")}
`;
}
function throughAliases(names, declarations, renames) {
  const out = [
    ...names
  ];
  for (let i = 0; i < out.length && i < 50; i++) {
    const name = out[i];
    if (!Object.hasOwn(declarations, name)) continue;
    const body = declarationBody(declarations[name]);
    const line = body === null ? "" : oneLine(body);
    const target = /^([A-Za-z_$][\w$]*)(?:\[\])?(?:\s*\|\s*(?:null|undefined))?$/.exec(line)?.[1];
    if (target && Object.hasOwn(declarations, target)) {
      renames.set(name, {
        target,
        body: line
      });
      if (!out.includes(target)) out.push(target);
    }
  }
  return out;
}
function declarationBody(text) {
  const clean = stripComments(text);
  const { code } = maskSource(clean);
  const head = /^\s*(?:export\s+)?(?:declare\s+)?(interface|type)\s+[\w$]+\s*(<[^=]*?>)?\s*/.exec(code);
  if (head === null) return null;
  if (head[1] === "type") {
    const eq = code.indexOf("=", head[0].length);
    return eq < 0 ? null : clean.slice(eq + 1).replace(/;\s*$/, "").trim();
  }
  const open = code.indexOf("{", head[0].length);
  if (open < 0) return null;
  if (/\bextends\b/.test(code.slice(head[0].length, open))) return null;
  return clean.slice(open).replace(/;\s*$/, "").trim();
}
function stripComments(text) {
  return maskSource(text).noComments;
}
function stripExport(text) {
  return text.replace(/^(\s*(?:\/\*\*[\s\S]*?\*\/\s*)?)export\s+/, "$1");
}
function oneLine(text) {
  return text.replace(/\s+/g, " ").trim().replace(/;\s*\}/g, " }").replace(/\{\s+\}/g, "{}").replace(/;$/, "");
}
function cutDescription(description) {
  const untagged = description.split(/\r?\n/).filter((line) => !/^\s*@\w/.test(line)).join("\n");
  const paragraphs = untagged.trim().split(/\r?\n\s*\r?\n/).map((p) => markdownText(p).replace(/\s+/g, " ").trim()).filter((p) => p !== "");
  let text = paragraphs[0] ?? "";
  let used = 1;
  while (used < paragraphs.length && text.length < DESCRIPTION_MAX_CHARS / 2) {
    text = `${/[.!?:]$/.test(text) ? text : `${text}.`} ${paragraphs[used]}`;
    used++;
  }
  const cut = cutText(text, DESCRIPTION_MAX_CHARS);
  const more = cut !== text || used < paragraphs.length;
  return more ? `${cut.endsWith("\u2026") ? cut : `${cut} \u2026`} (full: true shows all)` : cut;
}

// src/protocol/discovery_data.ts
function composeToolDescription(head, namespaceIdentifier, used) {
  const lines = [
    head
  ];
  if (used.length > 0) {
    lines.push("", `// Types used, declared in namespace ${namespaceIdentifier} (GatewayNamespaces.${namespaceIdentifier}):`, ...used);
  }
  return `${lines.join("\n")}
`;
}
var DiscoveryReader = class {
  #data;
  #paths = null;
  #ranked = null;
  constructor(data) {
    this.#data = data;
  }
  #pathIndex() {
    this.#paths ??= new PathIndex(this.#data.namespaces, this.#data.items);
    return this.#paths;
  }
  /** Ranks tools and scripts for a query, exactly as the server's search does. */
  search(query, options = {}) {
    this.#ranked ??= new RankedIndex(this.#pathIndex());
    return this.#ranked.search(query, options);
  }
  /**
   * Describes a tool (compactly unless `full`), a namespace or a script; throws
   * {@linkcode UnknownPathError} when unknown.
   */
  describe(path, options = {}) {
    const paths = this.#pathIndex();
    const resolved = paths.resolve(path);
    if (resolved === void 0) throw new UnknownPathError(path, paths.nearestPaths(path));
    if (resolved.kind === "namespace") return resolved.namespace.types;
    if (resolved.kind === "script") return resolved.describe;
    const ns = paths.namespace(resolved.namespace.identifier);
    const declarations = ns?.declarations ?? {};
    if (!options.full && resolved.outline !== void 0) {
      return composeCompactDescription(resolved.outline, declarations, options.depth === void 0 ? {} : {
        depth: options.depth
      });
    }
    const used = (resolved.uses ?? []).flatMap((name) => Object.hasOwn(declarations, name) ? [
      declarations[name]
    ] : []);
    return composeToolDescription(resolved.describe, resolved.namespace.identifier, used);
  }
};
export {
  DiscoveryReader
};
