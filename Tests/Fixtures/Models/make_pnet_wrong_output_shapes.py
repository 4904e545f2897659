"""Writes pnet_wrong_output_shapes.onnx: a network with MTCNN P-Net's input (N, x, y, 3) whose
outputs have other shapes than P-Net's: a probability map (N, x, y, 2), the input's first two
channels, and a box regression of one cell (1, 1, 1, 4) instead of a map. The tests hand it to the
face landmark networks' C code, which must report the shapes instead of reading past the
regression. Made with onnx 1.23.2 (the version `make models` pins):

    python3 -m pip install --target /tmp/onnx onnx==1.23.2
    PYTHONPATH=/tmp/onnx python3 make_pnet_wrong_output_shapes.py pnet_wrong_output_shapes.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

picture = helper.make_tensor_value_info("input", TensorProto.FLOAT, ["n", "x", "y", 3])
probability = helper.make_tensor_value_info("prob", TensorProto.FLOAT, ["n", "x", "y", 2])
regression = helper.make_tensor_value_info("reg", TensorProto.FLOAT, [1, 1, 1, 4])
constants = [numpy_helper.from_array(np.array(values, dtype=np.int64), name) for name, values in
             [("s0", [0]), ("e2", [2]), ("ax3", [3]), ("s000", [0, 0, 0]), ("e111", [1, 1, 1]), ("ax012", [0, 1, 2])]]
nodes = [helper.make_node("Slice", ["input", "s0", "e2", "ax3"], ["prob"]),
         helper.make_node("Concat", ["prob", "prob"], ["both"], axis=3),
         helper.make_node("Slice", ["both", "s000", "e111", "ax012"], ["reg"])]
graph = helper.make_graph(nodes, "wrong_shapes", [picture], [probability, regression], constants)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], producer_name="ELImage tests")
model.ir_version = 6
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
