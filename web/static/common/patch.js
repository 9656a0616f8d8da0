/* JSON Patch (RFC 6902), the subset the table's event stream sends (web/core/viewdiff.py):
   test, add (object key or list "-"), replace, remove, copy. Applies to a copy;
   throws when a "test" fails (the page missed a message and opens the stream again). */

function unescape(part) {
  return part.replace(/~1/g, "/").replace(/~0/g, "~");
}

function walk(doc, pointer) {
  const parts = pointer.split("/").slice(1).map(unescape);
  let target = doc;
  for (const part of parts.slice(0, -1)) {
    target = Array.isArray(target) ? target[Number(part)] : Object.hasOwn(target, part) ? target[part] : undefined;
    if (target === undefined || target === null) throw new Error(`no ${pointer}`);
  }
  return [target, parts[parts.length - 1]];
}

function get(doc, pointer) {
  const [parent, last] = walk(doc, pointer);
  if (Array.isArray(parent)) return parent[Number(last)];
  return Object.hasOwn(parent, last) ? parent[last] : undefined;
}

function put(parent, last, value) {
  if (Array.isArray(parent)) {
    if (last === "-") parent.push(value);
    else parent[Number(last)] = value;
  } else {
    Object.defineProperty(parent, last, { value, writable: true, enumerable: true,
      configurable: true });
  }
}

/** The view after ``ops``; ``view`` itself is left as it was. */
export function applyPatch(view, ops) {
  const doc = structuredClone(view);
  for (const op of ops) {
    if (op.op === "test") {
      if (JSON.stringify(get(doc, op.path)) !== JSON.stringify(op.value)) {
        throw new Error(`patch test failed at ${op.path}`);
      }
    } else if (op.op === "remove") {
      const [parent, last] = walk(doc, op.path);
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else {
      const value = op.op === "copy" ? structuredClone(get(doc, op.from)) : op.value;
      const [parent, last] = walk(doc, op.path);
      put(parent, last, value);
    }
  }
  return doc;
}
