"""Consistent but Dangerous (seed 004) on MedVIGIL data, one module per stage: the arms
(``arms``), paraphrase generation (``paraphrases``, ``presence``), the lmms-eval docs (``docs``,
``binary_docs``), records (``records``), the logs read (``logs``), scoring (``scoring``,
``arm_scoring``, ``task_metrics``), bootstrap CIs and the binary checks (``sample_details``,
``binary_checks``, ``confidence``), the suite result (``result``), tables and figures (``tables``,
``figures``), and the registry faces (``entry``, ``compare``)."""
