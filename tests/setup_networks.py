"""The networks of issue 26's training-setup cases, as source text: tests/test_precision.py lints
them (src/net.py of its projects) and tests/test_mindspore_claims.py runs them on MindSpore."""

NETWORKS = """import mindspore as ms
from mindspore import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        return self.fc(self.conv(x).mean((2, 3)))


class NetHoldingLoss(nn.Cell):
    def __init__(self, net, criterion):
        super().__init__()
        self.net = net
        self.criterion = criterion

    def construct(self, x):
        return self.net(x)


class NetWithLoss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def construct(self, x, y):
        return self.loss(self.net(x), y)


class HModel(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def construct(self, x):
        return self.fc(x)
"""
