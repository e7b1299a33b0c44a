"""`BleuScore(n_gram=4, smooth=False)`: corpus BLEU of tokenized candidate
sentences against their reference lists: the geometric mean of the clipped
1..n-gram precisions (+1 smoothed with `smooth`) times the brevity penalty, with
MindSpore's closest-reference length. Pure Python counting, as MindSpore's."""

from __future__ import annotations

from collections import Counter

import numpy as np

from mindjit.frontend.train.metrics.metric import (
    Metric,
    check_type,
    not_updated,
    rearrange_inputs,
)


class BleuScore(Metric):
    def __init__(self, n_gram=4, smooth=False):
        super().__init__()
        self.n_gram = check_type(n_gram, "n_gram", (int,))
        if self.n_gram > 4 or self.n_gram < 1:
            raise ValueError(
                f"For 'BleuScore', the argument 'n_gram' should range from 1 to 4, but got {n_gram}."
            )
        self.smooth = check_type(smooth, "smooth", (bool,))
        self.clear()

    def clear(self) -> None:
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._c, self._r = 0.0, 0.0
        self._trans_len, self._ref_len = 0, 0
        self._is_update = False

    def _count_ngram(self, words, n_gram: int) -> Counter:
        counter: Counter = Counter()
        for i in range(1, n_gram + 1):
            for j in range(len(words) - i + 1):
                counter[tuple(words[j : i + j])] += 1
        return counter

    @rearrange_inputs
    def update(self, *inputs) -> None:
        if len(inputs) != 2:
            raise ValueError(
                "For 'BleuScore.update', it needs 2 inputs (candidate_corpus, reference_corpus), "
                f"but got {len(inputs)}."
            )
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError(
                "For 'BleuScore.update', 'translate_corpus' (inputs[0]) and 'reference_corpus' "
                f"(inputs[1]) should be equal in length, but got {len(candidates)}, "
                f"{len(references)}"
            )
        for candidate, refs in zip(candidates, references):
            self._c += len(candidate)
            ref_lens = [len(ref) for ref in refs]
            diffs = [abs(len(candidate) - n) for n in ref_lens]
            self._r += ref_lens[diffs.index(min(diffs))]
            translation = self._count_ngram(candidate, self.n_gram)
            reference: Counter = Counter()
            for ref in refs:
                reference |= self._count_ngram(ref, self.n_gram)
            clipped = translation & reference
            for gram, count in clipped.items():
                self._numerator[len(gram) - 1] += count
            for gram, count in translation.items():
                self._denominator[len(gram) - 1] += count
        self._trans_len, self._ref_len = np.array(self._c), np.array(self._r)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise not_updated()
        if min(self._numerator) == 0.0:
            return np.array(0.0)
        if self.smooth:
            precision = (self._numerator + 1.0) / (self._denominator + 1.0)
        else:
            precision = self._numerator / self._denominator
        geometric_mean = np.exp(np.sum(np.full(self.n_gram, 1.0 / self.n_gram) * np.log(precision)))
        if self._c > self._r:
            brevity_penalty = np.array(1.0)
        else:
            brevity_penalty = np.exp(1 - self._ref_len / self._trans_len)
        return brevity_penalty * geometric_mean
