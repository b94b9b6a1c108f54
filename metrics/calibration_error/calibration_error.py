"""Calibration error: ECE, MCE and the Brier score (evaluate module).

A thin face over :func:`medvigil.scoring.confidence.calibration_error`; no second implementation.
"""

import datasets
import evaluate

from medvigil.scoring.confidence import calibration_error

_DESCRIPTION = """\
How far a model's confidence is from its accuracy. The N confidences fall into n_bins equal-width
bins on [0, 1], right-closed: bin b holds confidences in (b/n, (b+1)/n], and 0 falls in the first
bin. With n_b answers in bin b, acc_b their accuracy and conf_b their mean confidence, the
Expected Calibration Error is ECE = sum_b (n_b / N) |acc_b - conf_b| (Naeini et al., 2015; Guo et
al., 2017, Sec. 2), the Maximum Calibration Error is MCE = max_b |acc_b - conf_b| over the non-empty
bins (Naeini et al., 2015), and the Brier score is mean (conf - correct)^2 (Brier, 1950). Lower
is better for all three.
"""

_KWARGS_DESCRIPTION = """
Args:
    confidences (`list` of `float`): per answer, the probability in [0, 1] that it is correct.
    correct (`list` of `bool` or `int`): whether each answer was correct (1/0).
    n_bins (`int`, default 10): the number of equal-width bins (>= 1).
Returns:
    ece (`float`): in [0, 1], lower is better.
    mce (`float`): in [0, 1], lower is better.
    brier (`float`): in [0, 1], lower is better.
Raises:
    ValueError: lengths differ, a confidence is NaN or outside [0, 1], a correct flag is not
        0/1, n_bins is not a whole number >= 1, or the input is empty.
Examples:
    Perfectly calibrated: in each bin the accuracy equals the confidence (Brier stays > 0):

    >>> calibration_error = evaluate.load("metrics/calibration_error")
    >>> r = calibration_error.compute(confidences=[0.5, 0.5, 1.0, 1.0], correct=[1, 0, 1, 1])
    >>> r["ece"], r["mce"], r["brier"]
    (0.0, 0.0, 0.125)

    Bins are right-closed: 0.2 falls in (0.1, 0.2] with 0.15 (accuracy 0.5, mean confidence
    0.175); 0.9 in (0.8, 0.9]. ECE = 2/3 * 0.325 + 1/3 * 0.1:

    >>> r = calibration_error.compute(confidences=[0.15, 0.2, 0.9], correct=[0, 1, 1], n_bins=10)
    >>> round(r["ece"], 6), round(r["mce"], 6), round(r["brier"], 6)
    (0.25, 0.325, 0.224167)
"""

_CITATION = """\
@inproceedings{naeini2015obtaining,
  title={Obtaining Well Calibrated Probabilities Using Bayesian Binning},
  author={Naeini, Mahdi Pakdaman and Cooper, Gregory and Hauskrecht, Milos},
  booktitle={Proceedings of the AAAI Conference on Artificial Intelligence},
  year={2015}
}
@inproceedings{guo2017calibration,
  title={On Calibration of Modern Neural Networks},
  author={Guo, Chuan and Pleiss, Geoff and Sun, Yu and Weinberger, Kilian Q.},
  booktitle={International Conference on Machine Learning},
  year={2017}
}
@article{brier1950verification,
  title={Verification of Forecasts Expressed in Terms of Probability},
  author={Brier, Glenn W.},
  journal={Monthly Weather Review},
  volume={78},
  number={1},
  pages={1--3},
  year={1950}
}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CalibrationError(evaluate.Metric):
    """Expected and maximum calibration error and the Brier score."""

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
            reference_urls=["https://arxiv.org/abs/1706.04599"],
        )

    def _compute(self, confidences, correct, n_bins=10):
        result = calibration_error(confidences, correct, n_bins)
        return {name: result[name] for name in ("ece", "mce", "brier")}
