/* A Jupyter kernel as the figure's Python: the worker's protocol (runtime/worker/worker.js) spoken over
 * an anywidget model's custom messages instead of a worker's port, answered by the kernel's CPython
 * (py/attention_live/widget/kernel.py). python-client.js uses it as it uses a worker: postMessage(),
 * onmessage, terminate().
 *
 *   page ── model.send(content) ──────────────────▶ kernel: AttentionLive._answer (the same Figure)
 *        ◀─ "msg:custom" (content, buffers) ──────  numpy arrays as binary buffers, never as JSON lists
 *
 * On the wire (kernel.py's to_wire): every numpy array is replaced by {"$array": i, dtype, shape},
 * its bytes being buffers[i] (C order, little-endian); a float that JSON cannot carry (inf, nan) by
 * {"$float": "inf" | "-inf" | "nan"}. fromWire turns them back into what the worker sends: a typed
 * array (a 2-d array as an array of rows, as Pyodide's toJs gives it), a number.
 * Source: anywidget's front-end module spec (model.send(content, callbacks, buffers), "msg:custom"
 * events with (content, buffers)), https://anywidget.dev/en/afm/.
 */

const PROTOCOL = "attention-live"; // every message's "protocol" field, both ways (kernel.py's PROTOCOL)
const TYPED = { float32: Float32Array, float64: Float64Array, int32: Int32Array, uint8: Uint8Array };
const FLOATS = { inf: Infinity, "-inf": -Infinity, nan: NaN };

/* The typed array of `dtype` over a copy of `view`'s bytes (a DataView or ArrayBuffer from the comm:
 * its offset need not be aligned to the element size). */
function typedArray(view, dtype) {
  const Type = TYPED[dtype];
  if (!Type) throw new TypeError(`the kernel sent an array of ${dtype}, which the figure does not read`); // not shown
  const bytes = view instanceof ArrayBuffer ? new Uint8Array(view) : new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  return new Type(bytes.slice().buffer);
}

/* An n-d array as Pyodide's toJs gives it: 1-d a typed array, more dimensions arrays of those. */
function nested(flat, shape) {
  if (shape.length <= 1) return flat;
  const inner = shape.slice(1).reduce((a, b) => a * b, 1);
  return Array.from({ length: shape[0] }, (_, i) => nested(flat.subarray(i * inner, (i + 1) * inner), shape.slice(1)));
}

const FLAT = ["attention", "entropy", "entropyEven"]; // a result's arrays that worker.js sends flat

/** A message from the kernel (`content`, its `buffers`) as the worker would have sent it. A result's
 *  arrays stay flat (the attention with its shape beside it), as worker.js sends them. */
export function fromWire(content, buffers = []) {
  const walk = (value, flat) => {
    if (Array.isArray(value)) return value.map((item) => walk(item, false));
    if (value === null || typeof value !== "object") return value;
    if (typeof value.$float === "string") return FLOATS[value.$float];
    if (Number.isInteger(value.$array)) {
      const array = typedArray(buffers[value.$array], value.dtype);
      return flat ? array : nested(array, value.shape);
    }
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item, FLAT.includes(key))]));
  };
  return walk(content, false);
}

/** A port to the kernel behind the anywidget `model`: what python-client.js needs of a worker. */
export function kernelPort(model) {
  const port = {
    onmessage: null,
    postMessage(message) { model.send({ protocol: PROTOCOL, message }); }, // requests are small: plain JSON
    terminate() { model.off("msg:custom", listen); },
  };
  function listen(content, buffers) {
    if (content?.protocol !== PROTOCOL) return; // not ours: no other messages travel today
    port.onmessage?.({ data: fromWire(content.message, buffers) });
  }
  model.on("msg:custom", listen);
  return port;
}
