/**
 * @module
 * The one way the pages make DOM: `h(tag, attributes, ...children)`, where strings become text nodes. Nothing
 * here parses HTML, so whatever an agent wrote is shown as text (an observation holding `<script>` is text).
 */

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.replace(/^on/, ""), value);
    else if (name === "class") element.className = String(value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
}

/** An SVG element (the charts): attributes set as given, text through `textContent` only. */
export function svg(tag: string, attributes: Record<string, string | number> = {}, text?: string): SVGElement {
  const element = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

export function clear(element: Element): void {
  while (element.firstChild) element.removeChild(element.firstChild);
}

/**
 * What the user is typing into a text field of `root` (the focused input with a name), so that a redraw keeps
 * it. A page drawn again while someone types (the answer to a filter they changed a moment before, arriving
 * late) replaces the field, and the text went with it. Call before clearing `root`; the function it returns
 * puts the text and the focus back into the new field of that name (checkboxes and radios show the address's
 * state instead).
 */
export function keepTyping(root: Element): () => void {
  const active = document.activeElement;
  if (!(active instanceof HTMLInputElement) || !active.name || !root.contains(active) || active.type === "checkbox" || active.type === "radio") {
    return () => undefined;
  }
  const { name, value } = active;
  return () => {
    const field = root.querySelector<HTMLInputElement>(`input[name="${CSS.escape(name)}"]`);
    if (!field) return;
    field.value = value;
    field.focus();
  };
}
