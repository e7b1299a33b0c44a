"""A BERT-style encoder for sequence classification, written as MindSpore's model
zoo writes BERT (models/official/nlp/Bert/src/bert_model.py, simplified): word,
position and token-type `nn.Embedding`s, LayerNorm, `nn.Dropout`; encoder
layers of multi-head self-attention with the padding mask and a GELU MLP, each
layer a `@ms.lazy_inline` Cell so graph mode compiles one shared layer graph
called once per layer; a tanh pooler on the first token and a classifier.

    python examples/models/bert.py [--steps 5] [--layers 4] [--device Ascend]
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

import numpy as np

import mindjit as ms
from mindjit import Tensor, nn, ops


@dataclass(frozen=True)
class BertConfig:
    vocab_size: int = 128
    hidden_size: int = 64
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    intermediate_size: int = 128
    max_position_embeddings: int = 64
    type_vocab_size: int = 2
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1
    num_labels: int = 2


class BertEmbeddings(nn.Cell):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=0)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.layernorm = nn.LayerNorm((config.hidden_size,), epsilon=1e-12)
        self.dropout = nn.Dropout(p=config.hidden_dropout_prob)
        positions = np.arange(config.max_position_embeddings, dtype=np.int32).reshape(1, -1)
        self.position_ids = Tensor(positions)

    def construct(self, input_ids, token_type_ids):
        seq_length = input_ids.shape[1]
        position_ids = self.position_ids[:, :seq_length]
        embeddings = self.word_embeddings(input_ids)
        embeddings = embeddings + self.position_embeddings(position_ids)
        embeddings = embeddings + self.token_type_embeddings(token_type_ids)
        return self.dropout(self.layernorm(embeddings))


class BertSelfAttention(nn.Cell):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.head_size = config.hidden_size // config.num_attention_heads
        self.query = nn.Dense(config.hidden_size, config.hidden_size)
        self.key = nn.Dense(config.hidden_size, config.hidden_size)
        self.value = nn.Dense(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(p=config.attention_probs_dropout_prob)
        self.scale = 1.0 / math.sqrt(self.head_size)

    def split_heads(self, x):
        b, s, _ = x.shape
        return x.reshape(b, s, self.num_heads, self.head_size).transpose(0, 2, 1, 3)

    def construct(self, hidden_states, attention_mask):
        q = self.split_heads(self.query(hidden_states))
        k = self.split_heads(self.key(hidden_states))
        v = self.split_heads(self.value(hidden_states))
        scores = ops.matmul(q, k.transpose(0, 1, 3, 2)) * self.scale
        # attention_mask: (batch, seq) of 1 (token) / 0 (padding)
        mask = attention_mask.reshape(attention_mask.shape[0], 1, 1, attention_mask.shape[1])
        scores = scores.masked_fill(mask == 0, -10000.0)
        probs = self.dropout(ops.softmax(scores, axis=-1))
        context = ops.matmul(probs, v).transpose(0, 2, 1, 3)
        b, s = context.shape[0], context.shape[1]
        return context.reshape(b, s, self.num_heads * self.head_size)


class BertLayer(nn.Cell):
    @ms.lazy_inline
    def __init__(self, config: BertConfig):
        super().__init__()
        self.attention = BertSelfAttention(config)
        self.attention_output = nn.Dense(config.hidden_size, config.hidden_size)
        self.attention_norm = nn.LayerNorm((config.hidden_size,), epsilon=1e-12)
        self.intermediate = nn.Dense(config.hidden_size, config.intermediate_size)
        self.gelu = nn.GELU(approximate=False)
        self.output = nn.Dense(config.intermediate_size, config.hidden_size)
        self.output_norm = nn.LayerNorm((config.hidden_size,), epsilon=1e-12)
        self.dropout = nn.Dropout(p=config.hidden_dropout_prob)

    def construct(self, hidden_states, attention_mask):
        attention = self.attention(hidden_states, attention_mask)
        attention = self.dropout(self.attention_output(attention))
        hidden_states = self.attention_norm(attention + hidden_states)
        mlp = self.output(self.gelu(self.intermediate(hidden_states)))
        return self.output_norm(self.dropout(mlp) + hidden_states)


class BertForSequenceClassification(nn.Cell):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.embeddings = BertEmbeddings(config)
        self.layers = nn.CellList([BertLayer(config) for _ in range(config.num_hidden_layers)])
        self.pooler = nn.Dense(config.hidden_size, config.hidden_size, activation="tanh")
        self.dropout = nn.Dropout(p=config.hidden_dropout_prob)
        self.classifier = nn.Dense(config.hidden_size, config.num_labels)

    def construct(self, input_ids, attention_mask, token_type_ids):
        hidden_states = self.embeddings(input_ids, token_type_ids)
        for layer in self.layers:
            hidden_states = layer(hidden_states, attention_mask)
        pooled = self.pooler(hidden_states[:, 0])
        return self.classifier(self.dropout(pooled))


class BertWithLoss(nn.Cell):
    """The classifier and its loss: the network `nn.TrainOneStepCell` trains."""

    def __init__(self, network: nn.Cell):
        super().__init__(auto_prefix=False)
        self.network = network
        self.loss = nn.CrossEntropyLoss()

    def construct(self, input_ids, attention_mask, token_type_ids, labels):
        logits = self.network(input_ids, attention_mask, token_type_ids)
        return self.loss(logits, labels)


def bert(layers: int = 2) -> BertForSequenceClassification:
    return BertForSequenceClassification(BertConfig(num_hidden_layers=layers))


def synthetic_batch(batch: int = 8, seq: int = 16, seed: int = 0) -> tuple[Tensor, ...]:
    """Token ids with padding (id 0) at the end of each sequence, the mask, the
    segment ids (the second half is segment 1) and binary labels."""
    config = BertConfig()
    rng = np.random.default_rng(seed)
    ids = rng.integers(1, config.vocab_size, (batch, seq)).astype(np.int32)
    lengths = rng.integers(seq // 2, seq + 1, batch)
    mask = (np.arange(seq)[None, :] < lengths[:, None]).astype(np.int32)
    ids *= mask
    segments = np.zeros((batch, seq), np.int32)
    segments[:, seq // 2 :] = 1
    labels = rng.integers(0, config.num_labels, batch).astype(np.int32)
    return Tensor(ids), Tensor(mask), Tensor(segments), Tensor(labels)


def train_net(net: nn.Cell, lr: float = 1e-3) -> nn.TrainOneStepCell:
    train = nn.TrainOneStepCell(BertWithLoss(net), nn.Adam(net.trainable_params(), lr))
    train.set_train()
    return train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--device", default="CPU", choices=["CPU", "Ascend"])
    args = parser.parse_args()
    ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device)
    ms.set_seed(1)
    net = bert(args.layers)
    train = train_net(net)
    batch = synthetic_batch()
    for i in range(args.steps):
        print(f"step {i}: loss {float(train(*batch).asnumpy()):.4f}")


if __name__ == "__main__":
    main()
