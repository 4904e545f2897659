#!/usr/bin/env python3
"""Convert MediaPipe's selfie segmentation TFLite model to ONNX for OpenCV DNN.

Usage:
    python3 convert_selfie_segmentation.py INPUT.tflite OUTPUT.onnx

What: reads `selfie_segmentation_landscape.tflite` (Apache-2.0, shipped in the
PyPI wheel mediapipe==0.10.14 under mediapipe/modules/selfie_segmentation/)
and writes an equivalent NCHW ONNX graph (opset 11). The square 256x256
`selfie_segmentation.tflite` from the same wheel converts too (it uses
AVERAGE_POOL_2D where the landscape model uses MEAN).

Why: we run the model with OpenCV's DNN module (OpenCV 4.6, Debian bookworm),
which cannot read TFLite, and generic converters (tf2onnx, ...) need
TensorFlow and do not know MediaPipe's custom `Convolution2DTransposeBias` op.
This converter only handles the few ops the model uses and emits only ONNX
constructs that OpenCV 4.6 imports and runs correctly:
  * TF 'SAME' padding (asymmetric for stride 2) becomes asymmetric Conv pads.
  * HARD_SWISH becomes x * HardSigmoid(x; alpha=1/6, beta=0.5). OpenCV 4.6
    has no HardSwish and rejects opset-11 Clip (min/max given as inputs).
  * MEAN over H,W (keepdims) / global AVERAGE_POOL_2D become GlobalAveragePool.
  * MUL [1,H,W,C]*[1,1,1,C] (squeeze-excite) stays a broadcasting Mul.
  * Convolution2DTransposeBias (MediaPipe custom op) becomes ConvTranspose.
  * RESIZE_BILINEAR becomes Resize(linear) with the matching
    coordinate_transformation_mode (half_pixel / align_corners / asymmetric).
  * float16 weights (DEQUANTIZE) become float32 initializers.
The output is deterministic: node/tensor names derive from op/tensor indices,
and no timestamps or random ids are written.

Model I/O (both models):
  input  `input`: [1, 3, H, W] float32, RGB, values in [0, 1]
         (MediaPipe's ImageToTensorCalculator: output_tensor_float_range
         {min: 0, max: 1}, keep_aspect_ratio: false, i.e. the frame is
         stretched to 256x144 (landscape) or 256x256 (square)). In OpenCV:
         blobFromImage(bgr, 1.0 / 255, Size(), Scalar(), /*swapRB=*/true).
  output `mask`:  [1, 1, H, W] float32 in [0, 1], the probability that the
         pixel is the PERSON (foreground), despite the landscape TFLite
         output name `segment_back`; MediaPipe uses it unchanged as the
         segmentation mask (TensorsToSegmentationCalculator, activation NONE).
"""
import sys

import numpy as np
import onnx
import tflite
from onnx import TensorProto, helper, numpy_helper

OP_NAMES = {v: k for k, v in vars(tflite.BuiltinOperator).items() if not k.startswith("_")}
TFL_DTYPES = {tflite.TensorType.FLOAT32: np.float32, tflite.TensorType.FLOAT16: np.float16,
              tflite.TensorType.INT32: np.int32}


class Converter:
    def __init__(self, buf):
        self.model = tflite.Model.GetRootAsModel(buf, 0)
        assert self.model.SubgraphsLength() == 1, "expected a single subgraph"
        self.graph = self.model.Subgraphs(0)
        self.nodes, self.inits = [], []
        self.consts = {}  # tflite tensor index -> numpy array (weights etc.)
        self.names = {}   # tflite tensor index -> ONNX value name
        self.counter = 0

    # ---- helpers ---------------------------------------------------------
    def shape(self, t):
        return self.graph.Tensors(t).ShapeAsNumpy().tolist()

    def buffer(self, t):
        tensor = self.graph.Tensors(t)
        data = self.model.Buffers(tensor.Buffer()).DataAsNumpy()
        if isinstance(data, int) or data.size == 0:
            return None
        return data.view(TFL_DTYPES[tensor.Type()]).reshape(self.shape(t))

    def const(self, t):
        """Weights, biases and axis/size tensors (possibly via DEQUANTIZE)."""
        if t not in self.consts:
            data = self.buffer(t)
            assert data is not None, f"tensor {t} is not constant"
            self.consts[t] = data
        return self.consts[t]

    def add_init(self, array, hint):
        name = f"{hint}_{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(self, op_type, inputs, **attrs):
        self.counter += 1
        out = f"v{self.counter}"
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=f"n{self.counter}_{op_type}", **attrs))
        return out

    @staticmethod
    def options(op, cls):
        table = op.BuiltinOptions()
        assert table is not None, "missing builtin options"
        opts = cls()
        opts.Init(table.Bytes, table.Pos)
        return opts

    def activation(self, x, act):
        """Fused activation. Clip(x, lo, hi) is written as an affine HardSigmoid
        because OpenCV 4.6 only reads the opset<11 Clip (min/max attributes)."""
        A = tflite.ActivationFunctionType
        if act == A.NONE:
            return x
        if act == A.RELU:
            return self.node("Relu", [x])
        lo, hi = {A.RELU6: (0.0, 6.0), A.RELU_N1_TO_1: (-1.0, 1.0)}[act]
        y = self.node("HardSigmoid", [x], alpha=1.0 / (hi - lo), beta=-lo / (hi - lo))  # clip((x-lo)/(hi-lo), 0, 1)
        y = self.node("Mul", [y, self.add_init(np.float32(hi - lo), "scale")])
        return self.node("Add", [y, self.add_init(np.float32(lo), "offset")]) if lo else y

    @staticmethod
    def same_pads(in_size, k, stride, dilation, out_size):
        """TF 'SAME' padding: extra pixel goes to the end (bottom/right)."""
        total = max((out_size - 1) * stride + (k - 1) * dilation + 1 - in_size, 0)
        return total // 2, total - total // 2

    # ---- op converters ---------------------------------------------------
    def conv(self, op, opts_cls, ins, out_t, depthwise):
        opts = self.options(op, opts_cls)
        w = self.const(ins[1]).astype(np.float32)  # [O,KH,KW,I] or [1,KH,KW,C*M]
        w = w.transpose(3, 0, 1, 2) if depthwise else w.transpose(0, 3, 1, 2)  # -> [O, I/group, KH, KW]
        _, ih, iw, ic = self.shape(ins[0])
        _, oh, ow, _ = self.shape(out_t)
        kh, kw = w.shape[2:]
        sh, sw = opts.StrideH(), opts.StrideW()
        dh, dw = opts.DilationHFactor(), opts.DilationWFactor()
        if opts.Padding() == tflite.Padding.SAME:
            (pt, pb), (pl, pr) = self.same_pads(ih, kh, sh, dh, oh), self.same_pads(iw, kw, sw, dw, ow)
        else:
            pt = pb = pl = pr = 0
        assert oh == (ih + pt + pb - (kh - 1) * dh - 1) // sh + 1 and ow == (iw + pl + pr - (kw - 1) * dw - 1) // sw + 1
        group = ic if depthwise else 1
        if depthwise:
            assert opts.DepthMultiplier() * ic == w.shape[0]
        inputs = [self.names[ins[0]], self.add_init(w, "w")]
        if len(ins) > 2 and ins[2] >= 0:
            inputs.append(self.add_init(self.const(ins[2]).astype(np.float32), "b"))
        y = self.node("Conv", inputs, kernel_shape=[kh, kw], strides=[sh, sw], dilations=[dh, dw],
                      pads=[pt, pl, pb, pr], group=group)
        return self.activation(y, opts.FusedActivationFunction())

    def transpose_conv_bias(self, op, ins, out_t):
        """MediaPipe custom op: TF transpose conv + bias. custom_options is a
        raw TfLiteTransposeConvParams {int padding, stride_width, stride_height}."""
        padding, sw, sh = np.frombuffer(op.CustomOptionsAsNumpy().tobytes(), "<i4")[:3]
        w = self.const(ins[1]).astype(np.float32)          # [O, KH, KW, I]
        w = w.transpose(3, 0, 1, 2)                         # -> [I, O, KH, KW]
        _, ih, iw, _ = self.shape(ins[0])
        _, oh, ow, _ = self.shape(out_t)
        kh, kw = w.shape[2:]
        assert padding in (1, 2), "padding must be SAME(1) or VALID(2)"
        # Full transposed-conv output is (in-1)*s+k; crop to the TFLite output size.
        th, tw = (ih - 1) * sh + kh - oh, (iw - 1) * sw + kw - ow
        assert th >= 0 and tw >= 0 and (padding == 1 or th == tw == 0), "inconsistent stride/shape"
        pads = [th // 2, tw // 2, th - th // 2, tw - tw // 2]
        b = self.add_init(self.const(ins[2]).astype(np.float32).reshape(-1), "b")
        return self.node("ConvTranspose", [self.names[ins[0]], self.add_init(w, "w"), b],
                         kernel_shape=[int(kh), int(kw)], strides=[int(sh), int(sw)], pads=[int(p) for p in pads])

    def convert_op(self, op, name, ins, outs):
        out = outs[0]
        x = self.names.get(ins[0])
        if name == "DEQUANTIZE":       # float16 weights -> float32 constant
            self.consts[out] = self.const(ins[0]).astype(np.float32)
            return None
        if name == "CONV_2D":
            return self.conv(op, tflite.Conv2DOptions, ins, out, depthwise=False)
        if name == "DEPTHWISE_CONV_2D":
            return self.conv(op, tflite.DepthwiseConv2DOptions, ins, out, depthwise=True)
        if name == "Convolution2DTransposeBias":
            return self.transpose_conv_bias(op, ins, out)
        if name == "RELU":
            return self.node("Relu", [x])
        if name == "LOGISTIC":
            return self.node("Sigmoid", [x])
        if name == "HARD_SWISH":       # x * relu6(x + 3) / 6
            return self.node("Mul", [x, self.node("HardSigmoid", [x], alpha=1.0 / 6.0, beta=0.5)])
        if name == "AVERAGE_POOL_2D":  # only the global pool of squeeze-excite blocks
            opts = self.options(op, tflite.Pool2DOptions)
            _, ih, iw, _ = self.shape(ins[0])
            assert (opts.FilterHeight(), opts.FilterWidth()) == (ih, iw) and self.shape(out)[1:3] == [1, 1]
            return self.activation(self.node("GlobalAveragePool", [x]), opts.FusedActivationFunction())
        if name == "MEAN":
            opts = self.options(op, tflite.ReducerOptions)
            assert sorted(self.const(ins[1]).tolist()) == [1, 2] and opts.KeepDims(), "only spatial mean"
            return self.node("GlobalAveragePool", [x])
        if name in ("ADD", "MUL"):
            opts = self.options(op, tflite.AddOptions if name == "ADD" else tflite.MulOptions)
            a, b = ins
            if self.shape(a) != self.shape(out):  # put the full-size operand first (OpenCV broadcasting)
                a, b = b, a
            assert self.shape(a) == self.shape(out)
            y = self.node(name.capitalize(), [self.names[a], self.names[b]])
            return self.activation(y, opts.FusedActivationFunction())
        if name == "RESIZE_BILINEAR":
            opts = self.options(op, tflite.ResizeBilinearOptions)
            mode = ("align_corners" if opts.AlignCorners() else
                    "half_pixel" if opts.HalfPixelCenters() else "asymmetric")
            n, _, _, c = self.shape(ins[0])
            sizes = np.array([n, c, *self.const(ins[1]).tolist()], np.int64)  # NCHW target size
            roi = self.add_init(np.zeros(0, np.float32), "roi")          # unused
            scales = self.add_init(np.zeros(0, np.float32), "scales")    # empty: use sizes
            return self.node("Resize", [x, roi, scales, self.add_init(sizes, "sizes")], mode="linear",
                             coordinate_transformation_mode=mode)
        raise NotImplementedError(f"unsupported op {name}")

    def run(self):
        g = self.graph
        assert g.InputsLength() == 1 and g.OutputsLength() == 1
        in_t, out_t = g.Inputs(0), g.Outputs(0)
        n, h, w, c = self.shape(in_t)
        self.names[in_t] = "input"
        for i in range(g.OperatorsLength()):
            op = g.Operators(i)
            code = self.model.OperatorCodes(op.OpcodeIndex())
            name = OP_NAMES[max(code.BuiltinCode(), code.DeprecatedBuiltinCode())]
            if name == "CUSTOM":
                name = code.CustomCode().decode()
            ins = [op.Inputs(j) for j in range(op.InputsLength())]
            outs = [op.Outputs(j) for j in range(op.OutputsLength())]
            assert len(outs) == 1 and g.Tensors(outs[0]).Type() == tflite.TensorType.FLOAT32
            y = self.convert_op(op, name, ins, outs)
            if y is not None:
                self.names[outs[0]] = y
        # Rename the final value to "mask".
        last = self.nodes[-1]
        assert last.output[0] == self.names[out_t], "graph output must be produced last"
        last.output[0] = "mask"
        oshape = self.shape(out_t)
        graph = helper.make_graph(
            self.nodes, "selfie_segmentation",
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, [n, c, h, w])],
            [helper.make_tensor_value_info("mask", TensorProto.FLOAT, [oshape[0], oshape[3], oshape[1], oshape[2]])],
            initializer=self.inits)
        model = helper.make_model(graph, producer_name="convert_selfie_segmentation.py",
                                  opset_imports=[helper.make_opsetid("", 11)])
        model.ir_version = 6  # matches opset 11; readable by OpenCV 4.6
        onnx.checker.check_model(model)
        return model


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        model = Converter(f.read()).run()
    with open(sys.argv[2], "wb") as f:
        f.write(model.SerializeToString(deterministic=True))


if __name__ == "__main__":
    main()
