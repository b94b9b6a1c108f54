"""The multiple-choice protocol shared by the task packs: the MCQ prompt and letter parser, option
orders, CircularEval, the Appendix L retry rule, and the adapter from any MCQ dataset."""
