// tilefmt's Worker: runs the WebAssembly module and the API of
// tilefmt_impl.js off the page's main thread (web/tilefmt.mjs talks to it),
// where synchronous range requests may block. Objects opened here are kept
// by handle until closed.
/* global importScripts, createTilefmtCore, tilefmtImpl */
importScripts('tilefmt_core.js', 'tilefmt_impl.js');

const ready = createTilefmtCore();
const objects = new Map();
let nextHandle = 1;

function keep(obj) {
  const handle = nextHandle++;
  objects.set(handle, obj);
  return { handle, type: obj.objectType, url: obj.url };
}

/// The ArrayBuffers of a result, handed over rather than copied.
function buffersOf(x, out = new Set()) {
  if (ArrayBuffer.isView(x)) out.add(x.buffer);
  else if (x && typeof x === 'object') for (const v of Object.values(x)) buffersOf(v, out);
  return out;
}

const ops = {
  open(core, url, options, picked) {
    const source = picked ? tilefmtImpl.pickedSource(picked.root, picked.files) : tilefmtImpl.urlSource(url, options, core);
    return keep(tilefmtImpl.openWith(core, source, picked ? picked.root : url.replace(/\/+$/, ''), options));
  },
  call(core, handle, method, args) {
    const obj = objects.get(handle);
    if (!obj) throw new Error('tilefmt: the object was closed');
    if (method === 'open' || method === 'startBatches') return keep(obj[method](...args));
    if (method === 'requests') return obj.source.requests;
    return obj[method](...args);
  },
  close(core, handle) {
    const obj = objects.get(handle);
    if (obj) obj.close();
    objects.delete(handle);
    return null;
  },
};

self.onmessage = async (e) => {
  const { id, op, args } = e.data;
  try {
    const core = await ready;
    const result = ops[op](core, ...args);
    self.postMessage({ id, result }, [...buffersOf(result)]);
  } catch (err) {
    self.postMessage({ id, error: { name: err.name || 'Error', message: err.message || String(err) } });
  }
};
