"""The "mobilenet" sample model of make_sample_model.py: a small MobileNet-v2-style classifier.

Input 'image' float 1x3x64x64 (RGB, normalised with MEAN/STD below, as samples/classify.c does),
output 'probs' float 1x100. Opset 13. Stem Conv 3x3/2 (16) -> inverted residual blocks (1x1
expand, 3x3 depthwise with group=C, 1x1 project; residual Add where shapes allow) -> Conv 1x1
(128) -> GlobalAveragePool -> Flatten -> Gemm (100) -> Softmax. Every Conv is followed by
BatchNormalization and, except projections, Clip(0, 6) (ReLU6). Weights come from numpy with a
fixed seed; BatchNormalization statistics are calibrated on a fixed random image so every
activation stays unit-scale. reference() evaluates the model with numpy alone (float64).
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

SEED = 20240602
IN_SHAPE = (1, 3, 64, 64)
CLASSES = 100
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
# (expansion factor, output channels, stride) of each inverted residual block.
BLOCKS = [(3, 16, 1), (4, 24, 2), (4, 24, 1), (4, 32, 2), (4, 32, 1)]
STEM, HEAD = 16, 128


def conv2d(x, w, stride=1, pad=0, group=1):
    """NCHW convolution of one image x [C, H, W] with w [O, C/group, kh, kw], in float64."""
    c, _, _ = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (pad, pad), (pad, pad)))
    ho = (xp.shape[1] - kh) // stride + 1
    wo = (xp.shape[2] - kw) // stride + 1
    xg = xp.reshape(group, c // group, *xp.shape[1:])
    wg = w.reshape(group, o // group, cg, kh, kw)
    out = np.zeros((group, o // group, ho, wo))
    for i in range(kh):
        for j in range(kw):
            patch = xg[:, :, i:i + stride * ho:stride, j:j + stride * wo:stride]
            out += np.einsum("gchw,goc->gohw", patch, wg[:, :, :, i, j])
    return out.reshape(o, ho, wo)


class Builder:
    """Creates weights layer by layer, evaluates them on a calibration image while building
    (so BatchNormalization can be calibrated), and records the ONNX nodes and initializers."""

    def __init__(self):
        self.rng = np.random.default_rng(SEED)
        self.nodes, self.inits, self.layers = [], [], []
        self.count = 0

    def init(self, name, array):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def conv_bn(self, x, act, name, out_ch, k, stride, group, relu6):
        """Conv (no bias) + calibrated BatchNormalization (+ Clip(0, 6)); returns (name, value)."""
        in_ch = act.shape[0]
        fan_in = in_ch // group * k * k
        w = self.rng.normal(0, np.sqrt(2.0 / fan_in), (out_ch, in_ch // group, k, k))
        w = w.astype(np.float32)
        y = conv2d(act, w.astype(np.float64), stride, k // 2, group)
        mean = y.mean(axis=(1, 2)).astype(np.float32)
        var = (y.var(axis=(1, 2)) + 1e-3).astype(np.float32)
        gamma = self.rng.uniform(0.8, 1.2, out_ch).astype(np.float32)
        beta = self.rng.normal(0, 0.2, out_ch).astype(np.float32) + (0.5 if relu6 else 0.0)
        beta = beta.astype(np.float32)
        self.layers.append(("conv", w, stride, k // 2, group, gamma, beta, mean, var, relu6))
        self.nodes.append(helper.make_node(
            "Conv", [x, self.init(name + "_w", w)], [name + "_conv"], name=name,
            kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4, group=group))
        bn_in = [self.init(name + s, a) for s, a in
                 [("_gamma", gamma), ("_beta", beta), ("_mean", mean), ("_var", var)]]
        self.nodes.append(helper.make_node("BatchNormalization", [name + "_conv"] + bn_in,
                                           [name + "_bn"], name=name + "_bn", epsilon=1e-5))
        out = name + "_bn"
        y = apply_bn(y, gamma, beta, mean, var)
        if relu6:
            self.nodes.append(helper.make_node("Clip", [out, "zero", "six"], [name + "_relu6"],
                                               name=name + "_relu6"))
            out, y = name + "_relu6", np.clip(y, 0, 6)
        return out, y

    def block(self, x, act, index, expand, out_ch, stride):
        in_ch = act.shape[0]
        name = f"block{index}"
        h, y = self.conv_bn(x, act, name + "_expand", in_ch * expand, 1, 1, 1, True)
        h, y = self.conv_bn(h, y, name + "_dw", in_ch * expand, 3, stride, in_ch * expand, True)
        h, y = self.conv_bn(h, y, name + "_project", out_ch, 1, 1, 1, False)
        if stride == 1 and in_ch == out_ch:
            self.layers.append(("residual_end",))
            self.nodes.append(helper.make_node("Add", [x, h], [name + "_add"], name=name + "_add"))
            return name + "_add", act + y
        return h, y


def apply_bn(y, gamma, beta, mean, var):
    g, b, m, v = (a.astype(np.float64)[:, None, None] for a in (gamma, beta, mean, var))
    return (y - m) / np.sqrt(v + 1e-5) * g + b


def calibration_image():
    return np.random.default_rng(SEED + 1).normal(0, 1, IN_SHAPE[1:])


def build():
    """Returns (ONNX graph, layer list for reference()), built deterministically."""
    b = Builder()
    b.init("zero", np.array(0, np.float32))
    b.init("six", np.array(6, np.float32))
    x, act = b.conv_bn("image", calibration_image(), "stem", STEM, 3, 2, 1, True)
    for i, (expand, out_ch, stride) in enumerate(BLOCKS):
        x, act = b.block(x, act, i, expand, out_ch, stride)
    x, act = b.conv_bn(x, act, "head", HEAD, 1, 1, 1, True)
    feat = act.mean(axis=(1, 2))
    fc_w = b.rng.normal(0, 1.0 / np.sqrt(HEAD), (HEAD, CLASSES))
    fc_w = (fc_w * 3 / max(np.std(feat @ fc_w), 1e-6)).astype(np.float32)
    fc_b = b.rng.normal(0, 0.1, CLASSES).astype(np.float32)
    b.layers.append(("fc", fc_w, fc_b))
    b.nodes += [
        helper.make_node("GlobalAveragePool", [x], ["pooled"], name="pool"),
        helper.make_node("Flatten", ["pooled"], ["features"], name="flatten", axis=1),
        helper.make_node("Gemm", ["features", b.init("fc_w", fc_w), b.init("fc_b", fc_b)],
                         ["logits"], name="fc"),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        b.nodes, "sample_mobilenet",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, list(IN_SHAPE))],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, CLASSES])], b.inits)
    return graph, b.layers


def sample_rgb():
    """A deterministic RGB test pattern, uint8 [3, H, W] at the model's input size."""
    h, w = IN_SHAPE[2:]
    yy, xx = np.mgrid[0:h, 0:w]
    rgb = np.stack([(xx * 4 + yy) % 256, (yy * 4 + 32) % 256, ((xx + yy) * 2) % 256])
    return rgb.astype(np.uint8)


def sample_input():
    """sample_rgb() normalised like classify.c."""
    return normalise(sample_rgb())[None]


def write_ppm(path, rgb):
    """Writes uint8 [3, H, W] as a binary PPM (P6)."""
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (rgb.shape[2], rgb.shape[1]))
        f.write(np.ascontiguousarray(rgb.transpose(1, 2, 0)).tobytes())


def read_ppm(path):
    """Reads a binary PPM with maxval 255 and no comments into uint8 [3, H, W]."""
    with open(path, "rb") as f:
        data = f.read()
    magic, w, h, maxval, pixels = data.split(maxsplit=4)
    assert magic == b"P6" and maxval == b"255", path
    rgb = np.frombuffer(pixels[:int(w) * int(h) * 3], np.uint8).reshape(int(h), int(w), 3)
    return rgb.transpose(2, 0, 1)


def resize_nearest(rgb):
    """Nearest-neighbour resize to the input size, sampling at pixel centres as classify.c."""
    h, w = IN_SHAPE[2:]
    sy = ((2 * np.arange(h) + 1) * rgb.shape[1]) // (2 * h)
    sx = ((2 * np.arange(w) + 1) * rgb.shape[2]) // (2 * w)
    return rgb[:, sy][:, :, sx]


def normalise(rgb):
    """uint8 [3, H, W] -> float32 (p / 255 - MEAN) / STD per channel, as classify.c does."""
    x = rgb.astype(np.float32) / np.float32(255)
    mean = np.array(MEAN, np.float32)[:, None, None]
    std = np.array(STD, np.float32)[:, None, None]
    return ((x - mean) / std).astype(np.float32)


def reference(x, layers):
    """The model evaluated with numpy alone (float64), from the layer list build() returns."""
    act = x.astype(np.float64)[0]
    stack = []
    for layer in layers:
        if layer[0] == "conv":
            _, w, stride, pad, group, gamma, beta, mean, var, relu6 = layer
            y = apply_bn(conv2d(act, w.astype(np.float64), stride, pad, group),
                         gamma, beta, mean, var)
            act = np.clip(y, 0, 6) if relu6 else y
            stack.append(act)
        elif layer[0] == "residual_end":
            act = stack[-4] + act
            stack.append(act)
        else:
            _, fc_w, fc_b = layer
            logits = act.mean(axis=(1, 2)) @ fc_w.astype(np.float64) + fc_b
            e = np.exp(logits - logits.max())
            return (e / e.sum()).astype(np.float32)[None]
    raise AssertionError("no fc layer")
