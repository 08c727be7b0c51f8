// Just enough of the ONNX protobuf format to write a model: nodes (of the standard operator set and of
// ONNX Runtime's own, com.microsoft) with int, float and int-list attributes, float32/int8/int64
// initializers, typed inputs and outputs. Plain JavaScript for the encoder's
// worker thread (encoder-worker.mjs); field numbers are those of onnx.proto (ModelProto, GraphProto,
// NodeProto, AttributeProto, TensorProto, ValueInfoProto, TypeProto, TensorShapeProto).

const TENSOR_FLOAT = 1;
const TENSOR_INT8 = 3;
const TENSOR_INT64 = 7;
const MICROSOFT_DOMAIN = 'com.microsoft';
const ATTRIBUTE_FLOAT = 1;
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_INTS = 7;

class ProtoWriter {
  parts = [];
  length = 0;

  bytes(b) {
    this.parts.push(b);
    this.length += b.length;
  }

  varint(n) {
    let v = BigInt.asUintN(64, BigInt(n));
    const out = [];
    while (v > 127n) {
      out.push(Number(v & 127n) | 128);
      v >>= 7n;
    }
    out.push(Number(v));
    this.bytes(Uint8Array.from(out));
  }

  int(field, n) {
    this.varint(field << 3);
    this.varint(n);
  }

  float(field, f) {
    this.varint((field << 3) | 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, f, true);
    this.bytes(b);
  }

  lengthDelimited(field, b) {
    this.varint((field << 3) | 2);
    this.varint(b.length);
    this.bytes(b);
  }

  string(field, s) {
    this.lengthDelimited(field, new TextEncoder().encode(s));
  }

  message(field, write) {
    const inner = new ProtoWriter();
    write(inner);
    this.lengthDelimited(field, inner.finish());
  }

  finish() {
    const out = new Uint8Array(this.length);
    let offset = 0;
    for (const p of this.parts) {
      out.set(p, offset);
      offset += p.length;
    }
    return out;
  }
}

/**
 * A graph being built. `init` adds a constant (float32 or, for shapes, int64); `op` adds a node and
 * returns the name of its (first) output. Names of constants are reused when added twice.
 */
export class OnnxGraph {
  nodes = [];
  initializers = new Map();
  counter = 0;

  init(name, dims, data) {
    if (!this.initializers.has(name)) this.initializers.set(name, { dims, data });
    return name;
  }

  shape(name, values) {
    return this.init(name, [values.length], BigInt64Array.from(values, BigInt));
  }

  op(type, inputs, attributes = {}, outputCount = 1, domain = '') {
    const outputs = Array.from({ length: outputCount }, () => `t${this.counter++}`);
    this.nodes.push({ type, inputs, outputs, attributes, domain });
    return outputCount === 1 ? outputs[0] : outputs;
  }

  /**
   * `input · W + bias`, W given as [inputs, outputs] row-major. With `int8`, W is stored as 8-bit integers
   * and ONNX Runtime multiplies in integers (DynamicQuantizeMatMul: the input quantised per run, 8 bits over
   * its range): a quarter of the bytes to read per run, which is what a short text's run waits on
   * (docs/discovery-history.md, "Ninth round").
   */
  dense(input, name, [inputs, outputs], weights, bias, { int8 = false } = {}) {
    const biasName = this.init(`${name}.bias`, [outputs], bias);
    if (!int8)
      return this.op('Add', [
        this.op('MatMul', [input, this.init(name, [inputs, outputs], weights)]),
        biasName,
      ]);
    const { values, scales } = int8Columns(weights, inputs, outputs);
    const w = this.init(name, [inputs, outputs], values);
    const scale = this.init(`${name}.scale`, [outputs], scales);
    return this.op('DynamicQuantizeMatMul', [input, w, scale, '', biasName], {}, 1, MICROSOFT_DOMAIN);
  }

  /** The model as bytes: opset 17, one float input and one float output with the given dims. */
  toModel(input, inputDims, output, outputDims) {
    const w = new ProtoWriter();
    w.int(1, 8); // ir_version
    w.string(2, 'svc');
    w.message(8, (o) => o.int(2, 17)); // opset_import: the default domain, version 17
    if (this.nodes.some((n) => n.domain === MICROSOFT_DOMAIN))
      w.message(8, (o) => {
        o.string(1, MICROSOFT_DOMAIN);
        o.int(2, 1);
      });
    w.message(7, (g) => {
      for (const n of this.nodes) g.message(1, (m) => writeNode(m, n));
      g.string(2, 'graph');
      for (const [name, t] of this.initializers) g.message(5, (m) => writeTensor(m, name, t));
      g.message(11, (v) => writeValueInfo(v, input, inputDims));
      g.message(12, (v) => writeValueInfo(v, output, outputDims));
    });
    return w.finish();
  }
}

/**
 * A weight matrix as integers, one scale per output column: symmetric, |q| ≤ 63 (7 bits). Without VNNI,
 * x86 multiplies the 8-bit input by the weights in pairs summed into 16 bits (VPMADDUBSW), which
 * saturates for 255 · 127 · 2; 7-bit weights never do, so every CPU computes the same integers.
 */
function int8Columns(weights, rows, cols) {
  const values = new Int8Array(rows * cols);
  const scales = new Float32Array(cols);
  for (let c = 0; c < cols; c++) {
    let max = 0;
    for (let r = 0; r < rows; r++) max = Math.max(max, Math.abs(weights[r * cols + c]));
    const scale = max / 63 || 1;
    scales[c] = scale;
    for (let r = 0; r < rows; r++) values[r * cols + c] = Math.round(weights[r * cols + c] / scale);
  }
  return { values, scales };
}

function writeNode(m, n) {
  for (const i of n.inputs) m.string(1, i);
  for (const o of n.outputs) m.string(2, o);
  m.string(4, n.type);
  if (n.domain) m.string(7, n.domain);
  for (const [name, value] of Object.entries(n.attributes)) {
    m.message(5, (a) => {
      a.string(1, name);
      if (Array.isArray(value)) {
        for (const x of value) a.int(8, x);
        a.int(20, ATTRIBUTE_INTS);
      } else if (Number.isInteger(value)) {
        a.int(3, value);
        a.int(20, ATTRIBUTE_INT);
      } else {
        a.float(2, value);
        a.int(20, ATTRIBUTE_FLOAT);
      }
    });
  }
}

function writeTensor(m, name, { dims, data }) {
  for (const d of dims) m.int(1, d);
  m.int(
    2,
    data instanceof BigInt64Array ? TENSOR_INT64 : data instanceof Int8Array ? TENSOR_INT8 : TENSOR_FLOAT,
  );
  m.string(8, name);
  m.lengthDelimited(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength)); // raw_data, little-endian
}

/** A float tensor's name and dims; a string dim is symbolic (any size). */
function writeValueInfo(v, name, dims) {
  v.string(1, name);
  v.message(2, (type) =>
    type.message(1, (tensor) => {
      tensor.int(1, TENSOR_FLOAT);
      tensor.message(2, (shape) => {
        for (const d of dims)
          shape.message(1, (dim) => (typeof d === 'string' ? dim.string(2, d) : dim.int(1, d)));
      });
    }),
  );
}
