/* Building and updating the page.  Player names are typed by players, so the helpers
   here only ever set text and attributes: a name never becomes markup. */

const SVG_NS = "http://www.w3.org/2000/svg";

/** The element with this id: one the page's template has (every id the scripts name is
    in their page; the checker takes that on trust).
    @param {string} id
    @returns {HTMLElement} */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(typeof child === "string" || typeof child === "number"
      ? document.createTextNode(String(child)) : child);
  }
  return node;
}

/** Build an element: attrs may hold class, dataset, text, on* handlers; strings become text. */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  return append(node, children);
}

/** Build an SVG element (every attribute set as given). */
export function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
  return append(node, children);
}

/** Set a node's text only when it changed (no flicker, no lost selection). */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** Run `change` and give focus back to the element that had it, if the change moved it
    in the document (moving a node drops focus) but did not remove it. */
export function keepFocus(change) {
  const focused = /** @type {HTMLElement | SVGElement | null} */ (document.activeElement);
  change();
  if (focused && focused !== document.body && focused.isConnected
      && document.activeElement !== focused) {
    focused.focus({ preventScroll: true });
  }
}

/** Make `list`'s children match `items`, one node per key, in order, reusing the nodes
    already there (so a focused button inside one keeps its focus and state).

    create(item) makes a new node; update(node, item, index) brings it up to date.
    Keys live in a Map (never an object: a key may be any name a player types). */
export function keyed(list, items, keyOf, create, update) {
  const nodes = list.keyedNodes || (list.keyedNodes = new Map());
  const wanted = new Set(items.map(keyOf));
  for (const [key, node] of nodes) {
    if (!wanted.has(key)) { node.remove(); nodes.delete(key); }
  }
  keepFocus(() => {
    items.forEach((item, index) => {
      const key = keyOf(item);
      let node = nodes.get(key);
      if (!node) { node = create(item); nodes.set(key, node); }
      update(node, item, index);
      const here = list.children[index];
      if (here !== node) list.insertBefore(node, here || null);
    });
  });
}
