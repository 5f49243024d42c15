// HTML of the first-party input UI (choice card, question form): made here from a fixed template, every
// model-provided string escaped. No script: the UI has no reply path (the answer is the user's next
// message), and its Content-Security-Policy allows nothing but the inline style.

/** `server_name` of the UI resources the service itself produces. */
export const FIRST_PARTY_SERVER = 'federation';

/** The MIME type of MCP Apps HTML, which first-party UI uses too. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML character data or attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]);
}

function lines(text: string): string {
  return escapeHtml(text).replace(/\r?\n/g, '<br>');
}

const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; font-size: 15px; line-height: 1.4; }
  body { margin: 0; padding: 12px; }
  .question { margin: 0 0 10px; font-weight: 600; }
  ol { margin: 0; padding: 0; list-style: none; display: grid; gap: 6px; }
  li { border: 1px solid #8886; border-radius: 8px; padding: 8px 10px; }
  label { display: block; margin: 10px 0 4px; }
  textarea { box-sizing: border-box; width: 100%; font: inherit; }
  .hint { margin: 10px 0 0; font-size: 13px; opacity: 0.75; }`;

function page(title: string, body: string): string {
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; form-action 'none'">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>\n<body>${body}</body></html>\n`
  );
}

/** A choice card: the question and its options, answered by replying with one of them. */
export function choiceCardHtml(question: string, options: readonly string[]): string {
  const items = options.map((option) => `<li>${lines(option)}</li>`).join('');
  return page(
    'Choice',
    `<main><p class="question">${lines(question)}</p><ol>${items}</ol>` +
      '<p class="hint">Reply with the option you choose.</p></main>',
  );
}

/** A question form: one labelled field per prompt; the answers are the user's reply. */
export function questionFormHtml(question: string | undefined, fields: readonly string[]): string {
  const inputs = fields
    .map(
      (label, index) =>
        `<label for="field-${index + 1}">${lines(label)}</label>` +
        `<textarea id="field-${index + 1}" name="field-${index + 1}" rows="2"></textarea>`,
    )
    .join('');
  const heading = question === undefined ? '' : `<p class="question">${lines(question)}</p>`;
  return page('Questions', `<form>${heading}${inputs}<p class="hint">Send your answers as your reply.</p></form>`);
}
