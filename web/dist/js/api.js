// The simulation API of `idforge serve`. Every ID, clock reading and tree comes from it;
// this page only draws what it answers.

async function getJSON(path) {
  const response = await fetch(path, { headers: { Accept: 'application/json' } });
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const why = body && body.detail ? body.detail : `${response.status} ${response.statusText}`;
    throw new Error(`${path}: ${why}`);
  }
  return body;
}

/** The three bit layouts: { layouts: [{kind, title, bits, fields: [{name, role, start, width}]}] } */
export const fetchLayouts = () => getJSON('v1/sim/layouts');

/** count requests of one kind, M1 and M2 taking turns: { steps: [{entry, tree}] } */
export const fetchRun = (kind, count) =>
  getJSON(`v1/sim/run?kind=${encodeURIComponent(kind)}&count=${count}`);

/** Demo n of the seed: { log, latest, trees, result, ... } */
export const fetchDemo = (n) => getJSON(`v1/sim/demo/${n}`);
