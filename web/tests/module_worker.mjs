// A user's module Worker that imports tilefmt's API (browser.html's
// moduleWorker suite): the module and its requests run in this Worker.
import { open } from '/dist/tilefmt.mjs';

self.onmessage = async (e) => {
  try {
    const a = await open(e.data.url);
    const r = await a.query(e.data.query);
    const fields = {};
    for (const [name, f] of Object.entries(r.fields)) fields[name] = Array.from(f.values, (v) => (typeof v === 'bigint' ? v.toString() : v));
    self.postMessage({ cells: r.cells, fields, requests: await a.requests(), inWorker: typeof document === 'undefined' });
  } catch (err) {
    self.postMessage({ error: { name: err.name, message: err.message } });
  }
};
