"""What the MedVIGIL ``evaluate`` modules share: citation, references and input features.

The modules under ``metrics/`` stay thin faces over :mod:`medvigil.scoring`; each keeps an
explicit ``_compute`` signature (evaluate forbids ``**kwargs`` there).
"""

from __future__ import annotations

MEDVIGIL_CITATION = """\
@article{jiang2026medvigil,
  title   = {MedVIGIL: Evaluating Trustworthy Medical VLMs Under Broken Visual Evidence},
  author  = {Jiang, Hanqi and Chen, Junhao and Kang, Mingyu and Kwon, Hyeokjae and Pan, Yi and
             Chen, Lifeng and You, Weihang and Gong, Haozhen and Yan, Ruiyu and Lv, Jinglei and
             Zhao, Lin and Ren, Hui and Li, Quanzheng and Liu, Tianming and Li, Xiang},
  journal = {arXiv preprint arXiv:2605.07919},
  year    = {2026}
}
"""
MEDVIGIL_URLS = ["https://arxiv.org/abs/2605.07919", "https://github.com/hq0709/MedVIGIL"]
PER_PROBE_COLUMNS = ("predictions", "references", "probe_kind", "case_id", "risk_tier")


def medvigil_features():
    """One string per probe: the predicted and gold letters, probe kind, case id, risk tier."""
    import datasets

    return datasets.Features({name: datasets.Value("string") for name in PER_PROBE_COLUMNS})
