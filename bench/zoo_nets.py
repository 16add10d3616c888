"""The hand-written networks of the benchmark zoo (bench/models.py exports them).

Small but representative: each exercises the operators and shapes of its family at a size where
latency is dominated by real compute. Layers without normalisation after them are initialised to
preserve variance (see `init_linear`), so activations stay near unit scale.
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

VOCAB = 1000


def init_linear(layer, gain=1.0):
    """Variance-preserving init: weights ~ N(0, gain / fan_in), bias 0."""
    nn.init.normal_(layer.weight, 0.0, math.sqrt(gain / layer.weight.shape[1]))
    nn.init.zeros_(layer.bias)
    return layer


def conv_bn(cin, cout, k=3, stride=1, groups=1, act=nn.SiLU):
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
              nn.BatchNorm2d(cout)]
    return nn.Sequential(*layers, act()) if act else nn.Sequential(*layers)


class SqueezeExcite(nn.Module):
    def __init__(self, c, reduced):
        super().__init__()
        self.reduce = nn.Conv2d(c, reduced, 1)
        self.expand = nn.Conv2d(reduced, c, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        s = torch.sigmoid(self.expand(F.silu(self.reduce(s))))
        return x * s


class MBConv(nn.Module):
    """Inverted residual with SiLU and squeeze-excite (EfficientNet's block)."""

    def __init__(self, cin, cout, expand, stride, k=3):
        super().__init__()
        mid = cin * expand
        self.expand = conv_bn(cin, mid, 1) if expand != 1 else nn.Identity()
        self.dw = conv_bn(mid, mid, k, stride, groups=mid)
        self.se = SqueezeExcite(mid, max(1, cin // 4))
        self.project = conv_bn(mid, cout, 1, act=None)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.project(self.se(self.dw(self.expand(x))))
        return x + y if self.residual else y


class EfficientNetStyle(nn.Module):
    # (expand, channels, repeats, stride, kernel) per stage, a slimmed EfficientNet-B0
    STAGES = [(1, 16, 1, 1, 3), (6, 24, 2, 2, 3), (6, 40, 2, 2, 5), (6, 80, 3, 2, 3),
              (6, 112, 2, 1, 5), (6, 192, 2, 2, 5)]

    def __init__(self, classes=1000):
        super().__init__()
        blocks, c = [conv_bn(3, 32, 3, 2)], 32
        for expand, cout, repeats, stride, k in self.STAGES:
            for i in range(repeats):
                blocks.append(MBConv(c, cout, expand, stride if i == 0 else 1, k))
                c = cout
        blocks.append(conv_bn(c, 1280, 1))
        self.features = nn.Sequential(*blocks)
        self.fc = nn.Linear(1280, classes)

    def forward(self, x):
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(self.features(x), 1), 1))


class Attention(nn.Module):
    def __init__(self, hidden, heads, causal, seq):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.qkv = init_linear(nn.Linear(hidden, 3 * hidden))
        self.out = init_linear(nn.Linear(hidden, hidden))
        if causal:
            self.register_buffer("mask", torch.tril(torch.ones(seq, seq, dtype=torch.bool)))

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(h // self.heads)
        if self.causal:
            scores = scores.masked_fill(~self.mask[:s, :s], float("-inf"))
        y = torch.softmax(scores, dim=-1) @ v
        return self.out(y.transpose(1, 2).reshape(b, s, h))


class TransformerLayer(nn.Module):
    def __init__(self, hidden, heads, causal, seq, gelu):
        super().__init__()
        self.attn = Attention(hidden, heads, causal, seq)
        self.ln1, self.ln2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.ff = nn.Sequential(init_linear(nn.Linear(hidden, 4 * hidden), 2.0), gelu,
                                init_linear(nn.Linear(4 * hidden, hidden)))
        self.pre_norm = causal  # GPT: pre-LN; BERT: post-LN

    def forward(self, x):
        if self.pre_norm:
            x = x + self.attn(self.ln1(x))
            return x + self.ff(self.ln2(x))
        x = self.ln1(x + self.attn(x))
        return self.ln2(x + self.ff(x))


class TokenTransformer(nn.Module):
    """Token + position embeddings, `layers` transformer layers, a linear head."""

    def __init__(self, causal, gelu, head, hidden=256, heads=4, layers=4, seq=128):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, hidden)
        self.pos = nn.Parameter(torch.randn(1, seq, hidden) * 0.1)
        self.layers = nn.Sequential(
            *[TransformerLayer(hidden, heads, causal, seq, gelu) for _ in range(layers)])
        self.norm = nn.LayerNorm(hidden)
        self.head = init_linear(nn.Linear(hidden, head))

    def forward(self, ids):  # the position table sliced to the length: any seq up to 128
        return self.head(self.norm(self.layers(self.tok(ids) + self.pos[:, :ids.shape[1]])))


class BertStyle(TokenTransformer):
    """BERT-style encoder: seq 128, hidden 256, 4 heads, 4 post-LN layers, erf GELU."""

    def __init__(self):
        super().__init__(causal=False, gelu=nn.GELU(), head=256)


class GptStyle(TokenTransformer):
    """GPT-style decoder: causal attention, pre-LN, tanh-GELU, logits over the vocabulary."""

    def __init__(self):
        super().__init__(causal=True, gelu=nn.GELU(approximate="tanh"), head=VOCAB)


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        sizes = [1024, 2048, 2048, 1024]
        layers = []
        for a, b in zip(sizes, sizes[1:]):
            layers += [init_linear(nn.Linear(a, b), 2.0), nn.ReLU()]
        self.body = nn.Sequential(*layers, init_linear(nn.Linear(sizes[-1], 10)))

    def forward(self, x):
        return self.body(x)


class LstmModel(nn.Module):
    """Two-layer LSTM over 64 steps of 128 features, hidden 256, linear head on the sequence."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(128, 256, num_layers=2, batch_first=True)
        self.head = init_linear(nn.Linear(256, 32))

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y)


def double_conv(cin, cout):
    return nn.Sequential(conv_bn(cin, cout, act=nn.ReLU), conv_bn(cout, cout, act=nn.ReLU))


class UNetStyle(nn.Module):
    """U-Net segmenter on 128x128: MaxPool down; ConvTranspose and bilinear Resize up; Concat."""

    def __init__(self, classes=8):
        super().__init__()
        self.enc = nn.ModuleList([double_conv(3, 32), double_conv(32, 64), double_conv(64, 128)])
        self.mid = double_conv(128, 256)
        self.up_t = nn.ConvTranspose2d(256, 128, 2, stride=2)
        self.dec = nn.ModuleList([double_conv(256, 128), double_conv(128 + 64, 64),
                                  double_conv(64 + 32, 32)])
        self.head = nn.Conv2d(32, classes, 1)

    def forward(self, x):
        skips = []
        for block in self.enc:
            x = block(x)
            skips.append(x)
            x = F.max_pool2d(x, 2)
        x = self.dec[0](torch.cat([self.up_t(self.mid(x)), skips[2]], 1))
        for block, skip in zip(self.dec[1:], reversed(skips[:2])):
            up = F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False)
            x = block(torch.cat([up, skip], 1))
        return self.head(x)
