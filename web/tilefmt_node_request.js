// Synchronous HTTP(S) requests for Node, which has no synchronous client:
// a worker thread sends each request with fetch() while the calling thread
// waits on a shared flag (Atomics.wait), then takes the answer from the
// message port. The module's reads are synchronous calls from C++, so they
// cannot await; in a browser the same role is XMLHttpRequest's in a Worker.
// Certificates: Node's own, plus NODE_EXTRA_CA_CERTS.
'use strict';
const { Worker, MessageChannel, receiveMessageOnPort } = require('node:worker_threads');

// flag: 0 while a request is out, 1 when its answer is posted, 2 once the
// thread is up.
const SENDER = `
const { workerData } = require('node:worker_threads');
const { port, flag } = workerData;
Atomics.store(flag, 0, 2);
Atomics.notify(flag, 0);
port.on('message', async ({ method, url, headers }) => {
  let answer;
  try {
    const r = await fetch(url, { method, headers, redirect: 'follow' });
    answer = { status: r.status, body: new Uint8Array(await r.arrayBuffer()) };
  } catch (e) {
    answer = { error: e.cause ? String(e.cause.message || e.cause) : String(e.message) };
  }
  port.postMessage(answer, answer.body ? [answer.body.buffer] : []);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});`;

/// A function (method, url, headers) -> {status, response: ArrayBuffer}
/// that blocks until the answer is in; throws on a failure to send, and
/// after `timeoutMs` without an answer.
function syncTransport(timeoutMs = 300000) {
  const { port1, port2 } = new MessageChannel();
  const flag = new Int32Array(new SharedArrayBuffer(4));
  // execArgv: none of this process's flags (--input-type=module would make
  // the thread's CommonJS source a module).
  const worker = new Worker(SENDER, { eval: true, execArgv: [], workerData: { port: port2, flag }, transferList: [port2] });
  // Neither keeps the process alive once the caller is done.
  worker.unref();
  port1.unref();
  let started = false;
  return (method, url, headers) => {
    if (!started && Atomics.wait(flag, 0, 0, 30000) === 'timed-out') throw new Error('the request thread did not start');
    started = true;
    Atomics.store(flag, 0, 0);
    port1.postMessage({ method, url, headers });
    if (Atomics.wait(flag, 0, 0, timeoutMs) === 'timed-out') throw new Error(`no answer in ${timeoutMs / 1000} s`);
    const { message } = receiveMessageOnPort(port1);
    if (message.error) throw new Error(message.error);
    const b = message.body;
    return { status: message.status, response: b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) };
  };
}

module.exports = { syncTransport };
