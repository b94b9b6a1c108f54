"""Selective risk: the risk-coverage curve, AURC and e-AURC (evaluate module).

A thin face over :func:`medvigil.scoring.confidence.selective_risk`; no second implementation.
"""

import datasets
import evaluate

from medvigil.scoring.confidence import selective_risk

_DESCRIPTION = """\
Selective prediction (Geifman & El-Yaniv, 2017): a model answers only the questions it is most
confident about. Order the N answers by confidence, highest first (ties keep the input order, a
stable sort). Keeping the first k answers gives coverage@k = k / N and selective risk
risk@k = (errors among the first k) / k. AURC, the area under the risk-coverage curve, is the
mean of risk@k over k = 1..N; e-AURC (Geifman, Uziel & El-Yaniv, 2019) subtracts the AURC of the
oracle order, every correct answer first, so a perfect ranking of the model's own errors scores 0.
Lower is better for both.
"""

_KWARGS_DESCRIPTION = """
Args:
    confidences (`list` of `float`): per answer, a confidence in [0, 1] (any score that ranks
        answers works; the range is checked so that one input feeds both modules).
    correct (`list` of `bool` or `int`): whether each answer was correct (1/0).
Returns:
    aurc (`float`): in [0, 1], lower is better.
    e_aurc (`float`): AURC minus the oracle's, in [0, 1], lower is better (0 = errors ranked last).
    coverage (`list` of `float`): k / N for k = 1..N.
    risk (`list` of `float`): risk@k for k = 1..N.
Raises:
    ValueError: lengths differ, a confidence is NaN or outside [0, 1], a correct flag is not
        0/1, or the input is empty (the message names the field and index).
Examples:
    Ties keep the input order, so the wrong answer first costs a full error at k = 1:

    >>> selective_risk = evaluate.load("metrics/selective_risk")
    >>> r = selective_risk.compute(confidences=[0.8, 0.8, 0.4], correct=[0, 1, 1])
    >>> r["coverage"], r["risk"]
    ([0.3333333333333333, 0.6666666666666666, 1.0], [1.0, 0.5, 0.3333333333333333])
    >>> round(r["aurc"], 6), round(r["e_aurc"], 6)
    (0.611111, 0.5)

    A single answer, and answers all correct:

    >>> selective_risk.compute(confidences=[0.3], correct=[0])["aurc"]
    1.0
    >>> selective_risk.compute(confidences=[0.9, 0.2], correct=[1, 1])["e_aurc"]
    0.0
"""

_CITATION = """\
@inproceedings{geifman2017selective,
  title={Selective Classification for Deep Neural Networks},
  author={Geifman, Yonatan and El-Yaniv, Ran},
  booktitle={Advances in Neural Information Processing Systems},
  year={2017}
}
@inproceedings{geifman2019biasreduced,
  title={Bias-Reduced Uncertainty Estimation for Deep Neural Classifiers},
  author={Geifman, Yonatan and Uziel, Guy and El-Yaniv, Ran},
  booktitle={International Conference on Learning Representations},
  year={2019}
}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SelectiveRisk(evaluate.Metric):
    """Risk-coverage curve, AURC and e-AURC of confidence-ranked answers."""

    def _info(self):
        if self.config_name != "default":
            raise ValueError(f"unknown configuration {self.config_name!r}; available: default")
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"confidences": datasets.Value("float64"), "correct": datasets.Value("int64")}
            ),
            reference_urls=["https://arxiv.org/abs/1705.08500", "https://arxiv.org/abs/1805.08206"],
        )

    def _compute(self, confidences, correct):
        return selective_risk(confidences, correct)
