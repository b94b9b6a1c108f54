"""Reading model outputs: the authors' harness result files, their ablation files, lmms-eval
logs."""
