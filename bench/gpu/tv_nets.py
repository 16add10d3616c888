"""ResNet and MobileNetV2 written out (the torchvision architectures, same layer shapes), for a
GPU machine whose PyTorch has no torchvision: run_gpu.py times PyTorch on these when
`import torchvision` fails. Only the shapes matter there (random weights, timing only)."""
from torch import nn


class Bottleneck(nn.Module):
    def __init__(self, cin, width, stride, down):
        super().__init__()
        cout = width * 4
        self.body = nn.Sequential(
            nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width),
            nn.ReLU(inplace=True), nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                  nn.BatchNorm2d(cout)) if down else None
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        idt = self.down(x) if self.down is not None else x
        return self.relu(self.body(x) + idt)


class Basic(nn.Module):
    def __init__(self, cin, width, stride, down):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(cin, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width),
            nn.ReLU(inplace=True), nn.Conv2d(width, width, 3, 1, 1, bias=False),
            nn.BatchNorm2d(width))
        self.down = nn.Sequential(nn.Conv2d(cin, width, 1, stride, bias=False),
                                  nn.BatchNorm2d(width)) if down else None
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        idt = self.down(x) if self.down is not None else x
        return self.relu(self.body(x) + idt)


def resnet(depths, bottleneck):
    block, exp = (Bottleneck, 4) if bottleneck else (Basic, 1)
    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
              nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for i, (n, width) in enumerate(zip(depths, (64, 128, 256, 512))):
        for j in range(n):
            stride = 2 if i > 0 and j == 0 else 1
            layers.append(block(cin, width, stride, j == 0 and (stride != 1 or cin != width * exp)))
            cin = width * exp
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 1000)]
    return nn.Sequential(*layers)


def resnet18():
    return resnet((2, 2, 2, 2), False)


def resnet50():
    return resnet((3, 4, 6, 3), True)


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, t):
        super().__init__()
        hid = cin * t
        layers = []
        if t != 1:
            layers += [nn.Conv2d(cin, hid, 1, bias=False), nn.BatchNorm2d(hid), nn.ReLU6(True)]
        layers += [nn.Conv2d(hid, hid, 3, stride, 1, groups=hid, bias=False), nn.BatchNorm2d(hid),
                   nn.ReLU6(True), nn.Conv2d(hid, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.body = nn.Sequential(*layers)
        self.res = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.body(x) if self.res else self.body(x)


def mobilenet_v2():
    cfg = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
           (6, 160, 3, 2), (6, 320, 1, 1)]
    layers = [nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6(True)]
    cin = 32
    for t, c, n, s in cfg:
        for i in range(n):
            layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
            cin = c
    layers += [nn.Conv2d(cin, 1280, 1, bias=False), nn.BatchNorm2d(1280), nn.ReLU6(True),
               nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(1280, 1000)]
    return nn.Sequential(*layers)


def squeezenet1_1():
    class Fire(nn.Module):
        def __init__(self, cin, s, e):
            super().__init__()
            self.sq = nn.Sequential(nn.Conv2d(cin, s, 1), nn.ReLU(True))
            self.e1 = nn.Sequential(nn.Conv2d(s, e, 1), nn.ReLU(True))
            self.e3 = nn.Sequential(nn.Conv2d(s, e, 3, padding=1), nn.ReLU(True))

        def forward(self, x):
            x = self.sq(x)
            import torch
            return torch.cat([self.e1(x), self.e3(x)], 1)

    return nn.Sequential(
        nn.Conv2d(3, 64, 3, 2), nn.ReLU(True), nn.MaxPool2d(3, 2, ceil_mode=True),
        Fire(64, 16, 64), Fire(128, 16, 64), nn.MaxPool2d(3, 2, ceil_mode=True),
        Fire(128, 32, 128), Fire(256, 32, 128), nn.MaxPool2d(3, 2, ceil_mode=True),
        Fire(256, 48, 192), Fire(384, 48, 192), Fire(384, 64, 256), Fire(512, 64, 256),
        nn.Dropout(0.5), nn.Conv2d(512, 1000, 1), nn.ReLU(True), nn.AdaptiveAvgPool2d(1),
        nn.Flatten())
