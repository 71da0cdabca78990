// Small helpers for building markup from server data safely.

const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML. */
export const esc = (value) => String(value).replace(/[&<>"']/g, (c) => ESC[c]);

/** 4097 -> "4,097" */
export const num = (value) => Number(value).toLocaleString('en-US');

/** Unix ms -> "HH:MM:SS.mmm" (UTC). */
export function clockText(ms) {
  const d = new Date(ms);
  const p = (v, n = 2) => String(v).padStart(n, '0');
  return `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds(), 3)}`;
}

/** Kind name -> what people call it. */
export const KIND_TITLES = { snowflake: 'Snowflake', uuid7: 'UUIDv7', uuid4: 'UUIDv4' };
export const kindTitle = (kind) => KIND_TITLES[kind] || kind;
