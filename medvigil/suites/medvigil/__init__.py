"""MedVIGIL (seed 000): release reader and validator, variants, Hub export, readers of the authors'
result files, metrics (Eqs. 2-7), ablations, sensitivity, the clinician row and the synthetic
release."""
