// Parsing JSON that arrives as text from a person or a form (a hidden field, a stored
// block carried through the editor): unreadable text is an answer, not an exception.

/** The value `text` holds, or undefined when it is not JSON. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
