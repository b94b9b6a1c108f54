"""BibTeX of the five seed papers: one copy, used by the builders, cards and metric modules."""

MEDVIGIL = """\
@article{jiang2026medvigil,
  title   = {MedVIGIL: Evaluating Trustworthy Medical VLMs Under Broken Visual Evidence},
  author  = {Jiang, Hanqi and Chen, Junhao and Kang, Mingyu and Kwon, Hyeokjae and Pan, Yi and
             Chen, Lifeng and You, Weihang and Gong, Haozhen and Yan, Ruiyu and Lv, Jinglei and
             Zhao, Lin and Ren, Hui and Li, Quanzheng and Liu, Tianming and Li, Xiang},
  journal = {arXiv preprint arXiv:2605.07919},
  year    = {2026}
}"""

MEDICONFUSION = """\
@inproceedings{sepehri2024mediconfusion,
  title     = {MediConfusion: Can you trust your AI radiologist? Probing the reliability of
               multimodal medical foundation models},
  author    = {Sepehri, Mohammad Shahab and Fabian, Zalan and Soltanolkotabi, Maryam and
               Soltanolkotabi, Mahdi},
  booktitle = {Workshop on Responsibly Building the Next Generation of Multimodal Foundational
               Models, NeurIPS},
  year      = {2024}
}"""

MEDQDEG = """\
@article{liu2026medqdeg,
  title   = {MedQ-Deg: A Multidimensional Benchmark for Evaluating MLLMs Across Medical Image
             Quality Degradations},
  author  = {Liu, Jiyao and Ning, Junzhi and Ma, Chenglong and Qu, Wanying and Shen, Jianghan and
             Luo, Siqi and Wei, Jinjie and Ye, Jin and Li, Pengze and Li, Tianbin and Lin, Jiashi and
             Shan, Hongming and Luo, Xinzhe and Liu, Xiaohong and Liu, Lihao and He, Junjun and
             Xu, Ningsheng},
  journal = {arXiv preprint arXiv:2603.07769},
  year    = {2026}
}"""  # noqa: E501

CONSISTENT_BUT_DANGEROUS = """\
@article{consistentbutdangerous2026,
  title   = {Consistent but Dangerous: Per-Sample Safety Classification Reveals False Reliability
             in Medical Vision-Language Models},
  year    = {2026},
  note    = {Seed paper 004 of medvigil; authors and venue not given in the seed text}
}"""
